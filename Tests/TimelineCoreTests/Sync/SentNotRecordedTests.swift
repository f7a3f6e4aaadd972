import Synchronization
import Testing
import TimelineTestSupport
@testable import TimelineCore

/// A replica's storage on a disk that can fill up: while `full`, every write fails as a
/// full disk does; reads go on.
final class FillingStorage: ReplicaStorage {
    let base: MemoryReplicaStorage
    let full = Atomic<Bool>(false)

    init(device: DeviceID) { base = MemoryReplicaStorage(device: device) }

    private func write() throws(ReplicaError) {
        if full.load(ordering: .relaxed) {
            throw .storage(path: "phone.jsonl", reason: "write failed: No space left on device (errno 28)")
        }
    }

    func load() throws(ReplicaError) -> ReplicaContents { try base.load() }
    func appendToMirror(_ bytes: [UInt8]) throws(ReplicaError) {
        try write()
        try base.appendToMirror(bytes)
    }
    func replaceMirror(_ bytes: [UInt8]) throws(ReplicaError) {
        try write()
        try base.replaceMirror(bytes)
    }
    func appendPending(_ submission: Submission) throws(ReplicaError) {
        try write()
        try base.appendPending(submission)
    }
    func replaceQueue(_ queue: ReplicaQueue) throws(ReplicaError) {
        try write()
        try base.replaceQueue(queue)
    }
}

/// A sync whose push reached the shared log but whose replica could not write what
/// followed (a full disk) says that the submissions were sent, so that nobody sends them
/// again; the next sync takes in their outcomes and sends nothing twice.
@Suite("A sync that sent but could not record")
struct SentNotRecordedTests {
    static let device = DeviceID("018f0000-0000-7000-8000-000000000001")!

    /// A shared log with timeline `life`, and a replica of it on `storage`.
    func replica(on storage: FillingStorage) throws -> (shared: InMemoryEventLog, replica: ReplicaSync) {
        let shared = InMemoryEventLog()
        _ = try shared.append([.timelineCreated(timeline: "life", name: "Life")], options: AppendOptions())
        var replica = try ReplicaSync(storage: storage, sharedName: "shared")
        _ = try replica.sync(with: shared, now: { nil })
        return (shared, replica)
    }

    @Test func aSyncOnAFullDiskAfterItsPushNamesWhatWasSent() throws {
        let storage = FillingStorage(device: Self.device)
        var (shared, replica) = try replica(on: storage)
        let date = try DateValue(parsing: "2000")
        let first = try replica.send([.addEvent("e1", timeline: "life", title: "One", dates: .single(date))],
                                     madeAt: nil, nonce: "n1")
        let second = try replica.send([.addEvent("e2", timeline: "life", title: "Two", dates: .single(date))],
                                      madeAt: nil, nonce: "n2")
        storage.full.store(true, ordering: .relaxed)
        #expect(throws: ReplicaError.sentNotRecorded(shared: "shared", sent: [first.id, second.id], path: "phone.jsonl",
                                                     reason: "write failed: No space left on device (errno 28)")) {
            _ = try replica.sync(with: shared, now: { nil })
        }
        #expect(shared.position == 3)
        // Sending again once there is room appends nothing twice: the outcomes are taken in.
        storage.full.store(false, ordering: .relaxed)
        let report = try replica.sync(with: shared, now: { nil })
        #expect(report.accepted == 2 && report.pending == 0 && report.pulled == 2)
        #expect(shared.position == 3)
        // Nothing pending, nothing sent: a full disk is the replica's own failure.
        storage.full.store(true, ordering: .relaxed)
        _ = try shared.append([.timelineCreated(timeline: "work", name: "Work")], options: AppendOptions())
        #expect(throws: ReplicaError.storage(path: "phone.jsonl", reason: "write failed: No space left on device (errno 28)")) {
            _ = try replica.sync(with: shared, now: { nil })
        }
    }

    /// The message says what was sent and not to send it again.
    @Test func theMessageSaysNotToSendAgain() {
        let error = ReplicaError.sentNotRecorded(shared: "shared.jsonl", sent: [SubmissionID(device: Self.device, number: 3)],
                                                 path: "phone.jsonl.queue", reason: "No space left on device (errno 28)")
        #expect(error.description == "018f0000-0000-7000-8000-000000000001:3 was sent to shared.jsonl (do not send it "
            + "again), but this replica could not record that: cannot use phone.jsonl.queue: No space left on device "
            + "(errno 28); nothing was lost: once phone.jsonl.queue can be written, the next sync takes in the outcome")
    }
}
