extension Instant {
    /// The UTC calendar year, month (1–12) and day (1–31) the instant falls on.
    package var utcDate: (year: Int, month: Int, day: Int) {
        var days = microsecondsSinceEpoch / CivilCalendar.microsecondsPerDay
        if microsecondsSinceEpoch % CivilCalendar.microsecondsPerDay < 0 { days -= 1 }
        return CivilCalendar.civilFromDays(days)
    }
}

extension Instant {
    /// The instant of UTC midnight at the start of a calendar day (proleptic Gregorian).
    package init(utcYear year: Int, month: Int, day: Int = 1) {
        self.init(microsecondsSinceEpoch: CivilCalendar.daysFromCivil(year: year, month: month, day: day)
            * CivilCalendar.microsecondsPerDay)
    }
}
