/// The identifier of a timeline event, unique across all timelines while the event exists.
///
/// Event identifiers order date rows that share an instant; that comparison is by the
/// identifier's UTF-8 bytes, never by Swift's
/// Unicode-aware `String` comparison.
public struct EventID: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The identifier's text, exactly as recorded in the log.
    public var rawValue: String

    /// Creates an identifier from its text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates an identifier from its text.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates an identifier from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The identifier's text.
    public var description: String { rawValue }

    /// Whether the two identifiers are the same: their UTF-8 bytes are equal. Text that
    /// Unicode calls canonically equivalent (`"\u{E9}"` and `"e\u{301}"`) is two ids.
    /// - Complexity: O(*m*) for ids of *m* bytes.
    @inlinable
    public static func == (lhs: EventID, rhs: EventID) -> Bool {
        IdentifierText.sameBytes(lhs.rawValue, rhs.rawValue)
    }

    /// Hashes the identifier's UTF-8 bytes, in agreement with `==`.
    @inlinable
    public func hash(into hasher: inout Hasher) { IdentifierText.hash(rawValue, into: &hasher) }

    /// Whether this identifier sorts before `other` when both are compared as UTF-8 bytes.
    ///
    /// - Complexity: O(*m*), where *m* is the length of the shorter identifier.
    @inlinable
    package func precedesInUTF8(_ other: EventID) -> Bool {
        EventID.compareUTF8(rawValue, other.rawValue) < 0
    }

    /// Compares two strings by their UTF-8 bytes: negative, zero or positive.
    ///
    /// - Complexity: O(*m*), where *m* is the length of the shorter string.
    @inlinable
    package static func compareUTF8(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let n = min(pa.count, pb.count)
                if n > 0, let ba = pa.baseAddress, let bb = pb.baseAddress {
                    let c = memcmpBytes(ba, bb, n)
                    if c != 0 { return c }
                }
                return pa.count - pb.count
            }
        }
    }
}
