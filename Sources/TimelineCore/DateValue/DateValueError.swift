/// Why a text is not a valid date value: the value itself and the rule it breaks.
public struct DateValueError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text that was given, exactly.
    public var value: String
    /// The rule the text breaks, such as `month must be 01–12`.
    public var reason: String

    /// Creates an error for `value` breaking the rule `reason`.
    package init(value: String, reason: String) {
        self.value = value
        self.reason = reason
    }

    /// `date "2019-13": month must be 01–12`.
    public var description: String { "date \"\(value)\": \(reason)" }
}
