import Testing
import TimelineTestSupport
@testable import TimelineCore

/// What the folder's sequencer decides when copies of one device left different chains.
@Suite("The folder's sequencer")
struct FolderSequencerTests {
    /// A device restored from a backup (its copy of the folder with it) made its own
    /// submission 2 after the same submission 1 as the copy it replaced, whose submission 2
    /// had already reached the folder: the chain made first is decided, whatever the nonces
    /// say, so what the replaced copy acknowledged is kept (the restored copy then finds
    /// its number taken and stops, keeping its submission). It once went by the nonces'
    /// order, and half the time dropped the older submission with no notice to anyone.
    @Test(arguments: [false, true])
    func ofTwoCopiesChainsTheOneMadeFirstIsDecided(earlierHasTheLargerNonce: Bool) throws {
        var rng = SplitMix64(seed: 7)
        let device = DeviceID("018f0000-0000-7000-8000-000000000001")!
        let nonces = (0..<3).map { _ in Submission.makeNonce(using: &rng) }
        let pair = [nonces[1], nonces[2]].sorted()
        let (earlyNonce, lateNonce) = earlierHasTheLargerNonce ? (pair[1], pair[0]) : (pair[0], pair[1])
        func made(_ seconds: Int64) -> DateValue { DateValue(utc: Instant(microsecondsSinceEpoch: 1_780_000_000_000_000 + seconds * 1_000_000)) }
        let one = Submission(id: SubmissionID(device: device, number: 1), nonce: nonces[0],
                             commands: [.createTimeline("life", name: "Life")], basePosition: 0, madeAt: made(0))
        let early = Submission(id: SubmissionID(device: device, number: 2), nonce: earlyNonce,
                               commands: [.renameTimeline("life", name: "Early")], basePosition: 0, madeAt: made(60))
        let late = Submission(id: SubmissionID(device: device, number: 2), nonce: lateNonce,
                              commands: [.renameTimeline("life", name: "Late")], basePosition: 0, madeAt: made(3_600))
        let folder = MemoryFolder(owner: "sequencer", ledger: WriteLedger())
        let directory = FolderLayout.deviceDirectory(device) + "/"
        try folder.write(FolderLayout.submissionSegment([one, early], previous: nil),
                         to: directory + FolderLayout.submissionSegmentName([one, early]))
        try folder.write(FolderLayout.submissionSegment([one, late], previous: nil),
                         to: directory + FolderLayout.submissionSegmentName([one, late]))
        let log = InMemoryEventLog()
        var sequencer = FolderSequencer(folderName: "folder", logName: "shared")
        let report = try sequencer.run(log: log, folder: folder, now: { nil })
        #expect(report.decided == 2)
        let records = try log.records(after: 0)
        #expect(records.last?.facts == [.timelineRenamed(timeline: "life", name: "Early")])
        #expect(records.last?.submission == earlyNonce)
    }

    /// Two sequencers of two different shared logs, both running (`--watch`) on one folder:
    /// the second finds the first's sealed segment where its own would go and stops, naming
    /// the folder, instead of writing over it (every device would then hold another log
    /// than it mirrored). A sequencer started later is refused by its first check.
    @Test func aSecondSequencerOfAnotherLogNeverWritesOverTheFirst() throws {
        let folder = MemoryFolder(owner: "sequencer", ledger: WriteLedger())
        let first = InMemoryEventLog(), second = InMemoryEventLog()
        var one = FolderSequencer(folderName: "folder", logName: "first")
        var two = FolderSequencer(folderName: "folder", logName: "second")
        _ = try one.run(log: first, folder: folder, now: { nil })
        _ = try two.run(log: second, folder: folder, now: { nil })
        _ = try first.append([.timelineCreated(timeline: "life", name: "Life")], options: AppendOptions())
        _ = try second.append([.timelineCreated(timeline: "work", name: "Work")], options: AppendOptions())
        _ = try one.run(log: first, folder: folder, now: { nil })
        let path = FolderLayout.logDirectory + "/" + FolderLayout.logSegmentName(first: 1, last: 1)
        let published = try folder.read(path)
        #expect(throws: SequencerError.anotherLog(folder: "folder", published: 1, position: 1)) {
            _ = try two.run(log: second, folder: folder, now: { nil })
        }
        #expect(try folder.read(path) == published)
        var late = FolderSequencer(folderName: "folder", logName: "second")
        #expect(throws: SequencerError.anotherLog(folder: "folder", published: 1, position: 1)) {
            _ = try late.run(log: second, folder: folder, now: { nil })
        }
    }
}
