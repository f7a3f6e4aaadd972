/// Where a log stood at a position, saved with a checkpoint so that the log can be read on
/// from there instead of from its start.
///
/// Its ``bytes`` are the log's own and opaque to everyone else: a file log keeps the byte
/// offset after the record, that record's length and checksum, its file's identity and the
/// command ids before it; a database log what tells it the log is the same one. Only the
/// kind of log that made a point reads it; any other finds it does not match
/// (``EventLog/resumeProblem(at:)``).
public struct LogResumePoint: Sendable, Hashable {
    /// The position of the last record before the point (0: the start of the log).
    public let position: Int64
    /// The log's description of the point.
    public let bytes: [UInt8]

    /// Creates a point from what a log says of it (for log implementers).
    public init(position: Int64, bytes: [UInt8]) {
        self.position = position
        self.bytes = bytes
    }
}

/// The first byte of a resume point's ``LogResumePoint/bytes``: which kind of log made it.
package enum ResumePointKind: UInt8 {
    case file = 1
    case postgres = 2
}

/// The 64-bit FNV-1a hash of a text's UTF-8: the same in every process and on every
/// machine, unlike `Hasher` (for what is saved: command ids in resume points, file names).
package enum StableHash {
    /// The hash of `text`.
    /// - Complexity: O(*m*) for *m* bytes.
    package static func of(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
