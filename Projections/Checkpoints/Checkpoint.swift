import TimelineCore

/// A projection's state saved to disk, with the log position it reflects.
///
/// Opening a store loads its checkpoint and replays only the records after ``position``.
/// The file holds a format tag, the projection's ``TimelineProjection/schemaVersion``,
/// the position, where the log was at that position (``resumePoint``, the log's own
/// opaque description, so that the log is reopened reading only what follows), the
/// timelines, the distinct date texts in the order of dates, the events in
/// ``EventTable/partitionCount`` partitions by their ids' hashes (each event's timeline
/// and dates as indices into those tables; each partition's count and length first; then
/// each partition's index, and each event's place and timeline by number: see
/// ``PartitionSource``), the views (each view's definition and position, with the row order once for all views of
/// one filter and placement), each named timeline's summary (its counts, and its distinct
/// dates as indices with how many times its events have each), and ends with a CRC-32C of
/// everything before it.
///
/// Loading checks the checksum and every partition on every processor. For a store that
/// restores views it decodes the partitions at the same time, then builds the event
/// table's shards and each set of rows at the same time; for one that keeps no view
/// (a command that prints no rows), or only views of timelines that hold half of the
/// events or fewer, it leaves the events in their partitions, and decodes each event
/// where it lies when a command or a row needs it (``PendingPartitions``). A
/// checkpoint of another schema version, or a damaged one, is refused by ``load(_:keeping:)``;
/// the caller rebuilds from the log instead.
package struct Checkpoint: Sendable {
    /// Why a checkpoint cannot be used.
    package enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The bytes are not a checkpoint, or they are damaged.
        case damaged(String)
        /// The checkpoint was written by another schema version of the projections.
        case otherSchemaVersion(found: UInt32, expected: UInt32)

        /// A message naming what is wrong.
        package var description: String {
            switch self {
            case .damaged(let reason): "damaged checkpoint: \(reason)"
            case .otherSchemaVersion(let found, let expected):
                "checkpoint of schema version \(found); this version reads \(expected)"
            }
        }
    }

    static let magic: [UInt8] = Array("TLCHKPT1".utf8)

    /// The log position the state reflects.
    package let position: Int64
    /// Where the log was at ``position``, if known: lets the log reopen from there.
    package let resumePoint: LogResumePoint?
    let projection: TimelineProjection

    init(projection: TimelineProjection, resumePoint: LogResumePoint?) {
        self.position = projection.position
        self.resumePoint = resumePoint
        self.projection = projection
    }
}

extension TimelineProjection {
    /// The version of the projections' state: a checkpoint of another version is rebuilt.
    ///
    /// Version 2 added the log's resume point and keeps dates and timelines in tables;
    /// version 3 keeps the dates' table in order and the events in blocks; version 4
    /// saves the rows of the views with one filter and placement once; version 5 orders
    /// rows by instants exact to the nanosecond, takes ids as the same only when their
    /// bytes are, and keeps now's nanoseconds; version 6 keeps any kind of log's resume
    /// point, opaque, and no file identity of its own; version 7 writes each placement,
    /// order, sectioning and kind of row as its stated code (``CheckpointCoded``), not its
    /// place among the enum's cases; version 8 keeps the events in partitions by their ids'
    /// hashes, so that one is decoded without the others, and saves the summaries.
    package static let schemaVersion: UInt32 = 8

    /// The projection's state as a checkpoint, with where the log was at its position.
    ///
    /// A `resumePoint` must be the log's at this projection's position (``position``);
    /// one for another position is left out.
    /// - Complexity: O(1); the state is shared, not copied.
    package func checkpoint(resumePoint: LogResumePoint? = nil) -> Checkpoint {
        Checkpoint(projection: self, resumePoint: resumePoint?.position == position ? resumePoint : nil)
    }

    /// Whether this projection came from a checkpoint with a partition that did not decode
    /// (a forged file, its checksum matching): events are missing from it, and it must not
    /// be saved as a checkpoint (``EventTable/lostPartitions``).
    package var lostCheckpointEvents: Bool { events.lostPartitions }

    /// The projection a checkpoint saved, with its views.
    package init(_ checkpoint: consuming Checkpoint) {
        self = checkpoint.projection
    }
}
