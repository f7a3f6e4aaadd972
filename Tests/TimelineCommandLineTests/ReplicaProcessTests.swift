import Foundation
import Testing
import TimelineTestSupport

/// Real processes (section 10): three replicas of one shared file log, each sending and
/// syncing through the tool, some processes killed by SIGKILL at random moments (during
/// sends and syncs); then everyone syncs. Every mirror must be the shared log byte for
/// byte, every acknowledged submission must have exactly one outcome, and every
/// rejection a notice on its device. (The same workload on PostgreSQL, with the server
/// restarted meanwhile, is in the PostgreSQL tests.)
@Suite("Replicas: real processes killed during syncs")
struct ReplicaProcessTests {
    @Test func killedReplicasLoseNothingAndConverge() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try await Self.runWorkload(in: directory, throughFolders: false)
    }

    /// Runs the workload in `directory`, heals it, and checks the end state.
    static func runWorkload(in directory: TemporaryDirectory, throughFolders: Bool) async throws -> ReplicaWorkload {
        guard let toolURL else { throw ToolNotFound() }
        let shared = directory.path("shared.jsonl")
        let workload = ReplicaWorkload(tool: toolURL, shared: shared, directory: directory.url.path,
                                       throughFolders: throughFolders)
        try workload.prepareShared()
        let acknowledged = try await workload.work()
        try workload.heal()
        #expect(try SpawnedProcess.run(toolURL, ["verify", "--log", shared]).status == 0)
        let lines = try Data(contentsOf: URL(fileURLWithPath: shared))
        #expect(try workload.problems(sharedLines: lines, acknowledged: acknowledged) == [])
        #expect(acknowledged.reduce(0, +) > 0, "no send was acknowledged: the workload tested nothing")
        return workload
    }
}

/// Real processes in folder mode (section 10): three replicas, each on its own copy of a
/// shared folder, a sequencer on another, and a file-sync service between the copies that
/// copies files late, in any order, half written before whole, and leaves conflicted
/// copies; replica and sequencer processes are killed by SIGKILL at random moments. Then
/// the service copies everything and everyone syncs: the same end state as through a log.
@Suite("Replicas: real processes on copies of a shared folder")
struct FolderProcessTests {
    @Test func killedReplicasAndSequencerLoseNothingAndConverge() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workload = try await ReplicaProcessTests.runWorkload(in: directory, throughFolders: true)
        // The service's conflicted copies were left in the copies, and skipped.
        let hub = try #require(workload.folders?.hub)
        let odd = FileManager.default.enumerator(atPath: hub)?.allObjects.compactMap { $0 as? String }
            .filter { $0.contains("conflicted copy") || $0.contains("sync-conflict") } ?? []
        #expect(!odd.isEmpty, "the copier made no conflicted copy: the workload did not test skipping them")
    }
}
