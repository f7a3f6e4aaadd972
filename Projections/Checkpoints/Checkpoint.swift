import TimelineCore

/// A projection's state saved to disk, with the log position it reflects.
///
/// Opening a store loads its checkpoint and replays only the records after ``position``.
/// The file holds a format tag, the projection's ``TimelineProjection/schemaVersion``,
/// the position, the timelines, the events and each view's row order, and ends with a
/// CRC-32C of everything before it. A checkpoint of another schema version, or a damaged
/// one, is refused by ``load(_:)``; the caller rebuilds from the log instead.
public struct Checkpoint: Sendable {
    /// Why a checkpoint cannot be used.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The bytes are not a checkpoint, or they are damaged.
        case damaged(String)
        /// The checkpoint was written by another schema version of the projections.
        case otherSchemaVersion(found: UInt32, expected: UInt32)

        /// A message naming what is wrong.
        public var description: String {
            switch self {
            case .damaged(let reason): "damaged checkpoint: \(reason)"
            case .otherSchemaVersion(let found, let expected):
                "checkpoint of schema version \(found); this version reads \(expected)"
            }
        }
    }

    static let magic: [UInt8] = Array("TLCHKPT1".utf8)

    /// The log position the state reflects.
    public let position: Int64
    /// An identity of the log the state came from (its file's device and inode), if known.
    public let logIdentity: UInt64
    let projection: TimelineProjection

    init(projection: TimelineProjection, logIdentity: UInt64) {
        self.position = projection.position
        self.logIdentity = logIdentity
        self.projection = projection
    }
}

extension TimelineProjection {
    /// The version of the projections' state: a checkpoint of another version is rebuilt.
    public static let schemaVersion: UInt32 = 1

    /// The projection's state as a checkpoint.
    /// - Complexity: O(1); the state is shared, not copied.
    public func checkpoint(logIdentity: UInt64 = 0) -> Checkpoint {
        Checkpoint(projection: self, logIdentity: logIdentity)
    }

    /// The projection a checkpoint saved, with its views.
    public init(_ checkpoint: Checkpoint) {
        self = checkpoint.projection
    }
}
