import Foundation

/// How the library makes ids a person did not give: `e<n>` for events, a slug of the name
/// for timelines (`My life` → `my-life`). On a replica every made id ends with the
/// device's tag (`e12.4f1c9a0b2d3e`, `my-life.4f1c9a0b2d3e`), so that ids made on two
/// devices offline never collide (section 10).
package enum IdentifierMaker {
    /// How long a slug made from a timeline's name is at most (before a suffix).
    package static let slugLength = 64

    /// A device's tag: the last 12 hexadecimal digits of its id, 48 random bits.
    package static func tag(of device: DeviceID) -> String { String(device.rawValue.suffix(12)) }

    /// An event id not taken: `e<count+1>` or, if taken, the next free one found by
    /// doubling steps (a few lookups at any size), with `.TAG` on a replica.
    /// - Complexity: O(log *n*) lookups for *n* events numbered without gaps.
    package static func eventID(count: Int, tag: String?, isTaken: (EventID) -> Bool) -> EventID {
        var step = 1
        while true {
            let id = EventID("e\(count + step)" + (tag.map { "." + $0 } ?? ""))
            if !isTaken(id) { return id }
            step = step < 1 << 40 ? step * 2 : step + 1
        }
    }

    /// Any script in Latin letters, then those in ASCII (`é` → `e`, `ß` → `ss`).
    private static let toASCII = StringTransform("Any-Latin; Latin-ASCII")

    /// A timeline id made from `name`: in Latin letters without accents, in lower case,
    /// runs of anything but ASCII letters and digits made one `-` (`Café in Valparaíso` →
    /// `cafe-in-valparaiso`, `Москва` → `moskva`), cut after a whole word to at most
    /// ``slugLength`` bytes; `-2`, `-3`, … when taken; `.TAG` on a replica.
    package static func timelineID(name: String, tag: String?, isTaken: (TimelineID) -> Bool) -> TimelineID {
        let latin = name.applyingTransform(toASCII, reverse: false) ?? name
        var slug = ""
        for scalar in latin.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, slug.last != "-" {
                slug += "-"
            }
        }
        // ASCII only, so characters are bytes: a long name must not make an id over 255 bytes.
        if slug.count > slugLength {
            let head = slug.prefix(slugLength + 1)
            slug = head.lastIndex(of: "-").map { String(head[..<$0]) } ?? String(head.dropLast())
        }
        while slug.last == "-" { slug.removeLast() }
        if slug.isEmpty { slug = "timeline" }
        let end = tag.map { "." + $0 } ?? ""
        var candidate = TimelineID(slug + end)
        var suffix = 1
        while isTaken(candidate) {
            suffix += 1
            candidate = TimelineID("\(slug)-\(suffix)" + end)
        }
        return candidate
    }
}
