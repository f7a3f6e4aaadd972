/// Where a replica keeps what survives it: the mirror (the shared log's records 1…P, byte
/// for byte), its pending submissions and its notices. A file replica keeps files beside
/// its mirror; the simulation keeps them in memory, where a "kill" drops everything else.
package protocol ReplicaStorage: Sendable {
    /// What the storage holds now, as a reopened replica reads it.
    func load() throws(ReplicaError) -> ReplicaContents
    /// Appends whole lines of the shared log to the mirror, durably, before it returns.
    func appendToMirror(_ bytes: [UInt8]) throws(ReplicaError)
    /// Replaces the mirror with `bytes` (a damaged mirror fetched again), durably.
    func replaceMirror(_ bytes: [UInt8]) throws(ReplicaError)
    /// Appends one submission to the pending submissions, durably, before it returns.
    func appendPending(_ submission: Submission) throws(ReplicaError)
    /// Replaces the pending submissions, the notices and the push state at once, durably.
    func replaceQueue(_ queue: ReplicaQueue) throws(ReplicaError)
    /// Runs `body` while no other process works on this replica (several processes may
    /// open one replica: a `sync --watch` and a command typed meanwhile).
    func withExclusiveAccess<T>(_ body: () throws(ReplicaError) -> T) throws(ReplicaError) -> T
    /// A value that changes whenever the storage's contents change (another process
    /// synced or sent), so that a replica held in memory knows to read them again.
    func version() -> [Int64]
}

extension ReplicaStorage {
    /// No other process shares it: `body` runs as it is.
    package func withExclusiveAccess<T>(_ body: () throws(ReplicaError) -> T) throws(ReplicaError) -> T { try body() }
    /// Never changed by anyone else.
    package func version() -> [Int64] { [] }
}

/// What a replica's storage holds.
package struct ReplicaContents: Sendable {
    /// The device id.
    package var device: DeviceID
    /// The shared log's records, as mirrored.
    package var mirror: [Record]
    /// Why the mirror could not be read, if it is damaged (it is then fetched again).
    package var mirrorProblem: String?
    /// The pending submissions, in number order.
    package var pending: [Submission]
    /// The notices not yet dismissed.
    package var notices: [Notice]
    /// The push state.
    package var state: ReplicaQueue.State
    /// The local ids of the last decided submissions (``ReplicaQueue/decidedLocalIDs``).
    package var decidedLocalIDs: [ReplicaQueue.LocalSend]

    /// Creates contents.
    package init(device: DeviceID, mirror: [Record], mirrorProblem: String? = nil, pending: [Submission],
                 notices: [Notice], state: ReplicaQueue.State, decidedLocalIDs: [ReplicaQueue.LocalSend] = []) {
        self.device = device
        self.mirror = mirror
        self.mirrorProblem = mirrorProblem
        self.pending = pending
        self.notices = notices
        self.state = state
        self.decidedLocalIDs = decidedLocalIDs
    }
}

/// A log that can hand over the bytes of its committed records as it holds them: a
/// replica's mirror copies them byte for byte.
package protocol RawLineReading {
    /// The committed records after `position` and their lines (newlines included), in order.
    func committedLines(after position: Int64) throws(EventLogError) -> (records: [Record], bytes: [UInt8])
}

extension EventLog {
    /// The committed records after `position` and their lines: as the log holds them, or,
    /// for a log that keeps no lines, in the store's layout.
    package func linesForMirror(after position: Int64) throws(EventLogError) -> (records: [Record], bytes: [UInt8]) {
        if let raw = self as? any RawLineReading { return try raw.committedLines(after: position) }
        let records = try records(after: position)
        var bytes: [UInt8] = []
        let encoder = RecordEncoder()
        for record in records { encoder.encode(record, into: &bytes) }
        return (records, bytes)
    }
}
