import Testing
@testable import TimelineCore

/// A send's local id (the app's own id, `--command-id` on a replica): found while its
/// submission is pending and after it is decided, kept in the replica's files, and
/// forgotten only after ``ReplicaQueue/decidedLocalIDsKept`` later decided ones.
@Suite("Local ids of a replica's sends")
struct LocalIDTests {
    let device = DeviceID("018f0000-0000-7000-8000-000000000001")!

    func outcome(of submission: Submission, at position: Int64) -> Record {
        Record.batch(of: [.timelineCreated(timeline: TimelineID("t\(position)"), name: "T")], after: position - 1,
                     options: AppendOptions(commandID: submission.id.description, submission: submission.nonce))[0]
    }

    @Test func foundWhilePendingAndAfterItIsDecided() {
        var queue = ReplicaQueue(device: device)
        let sent = queue.submit([.createTimeline("t1", name: "T")], basePosition: 0, nonce: "n1", madeAt: nil,
                                localID: "app-1")
        _ = queue.submit([.createTimeline("t2", name: "T")], basePosition: 0, nonce: "n2", madeAt: nil)
        #expect(queue.submission(localID: "app-1") == sent.id)
        #expect(queue.submission(localID: "app-2") == nil)
        _ = queue.learn(from: [outcome(of: sent, at: 1)])
        #expect(queue.pending.count == 1)
        #expect(queue.submission(localID: "app-1") == sent.id)
    }

    @Test func theOldestDecidedAreForgottenPastTheLimit() {
        var queue = ReplicaQueue(device: device)
        let total = ReplicaQueue.decidedLocalIDsKept + 1
        for number in 1...total {
            let sent = queue.submit([.createTimeline(TimelineID("t\(number)"), name: "T")], basePosition: 0,
                                    nonce: "n\(number)", madeAt: nil, localID: "app-\(number)")
            _ = queue.learn(from: [outcome(of: sent, at: Int64(number))])
        }
        #expect(queue.decidedLocalIDs.count == ReplicaQueue.decidedLocalIDsKept)
        #expect(queue.submission(localID: "app-1") == nil)
        #expect(queue.submission(localID: "app-2") == SubmissionID(device: device, number: 2))
        #expect(queue.submission(localID: "app-\(total)") == SubmissionID(device: device, number: Int64(total)))
    }

    @Test func keptInTheReplicasFiles() throws {
        let submission = Submission(id: SubmissionID(device: device, number: 3), nonce: "n", commands: [.removeEvent("e")],
                                    basePosition: 2, localID: "app \"3\"")
        #expect(try SyncCoding.submission(SyncCoding.json(submission)) == submission)
        let plain = Submission(id: SubmissionID(device: device, number: 4), nonce: "n", commands: [], basePosition: 2)
        #expect(try SyncCoding.submission(SyncCoding.json(plain)).localID == nil)
        let sent = ReplicaQueue.LocalSend(localID: "app\n1", id: SubmissionID(device: device, number: 1))
        #expect(try SyncCoding.localSend(SyncCoding.json(sent)) == sent)
    }
}
