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
        guard let toolURL else { throw ToolNotFound() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.path("shared.jsonl")
        let workload = ReplicaWorkload(tool: toolURL, shared: shared, directory: directory.url.path)
        try workload.prepareShared()
        let acknowledged = try await workload.work()
        try workload.heal()
        #expect(try SpawnedProcess.run(toolURL, ["verify", "--log", shared]).status == 0)
        let lines = try Data(contentsOf: URL(fileURLWithPath: shared))
        #expect(try workload.problems(sharedLines: lines, acknowledged: acknowledged) == [])
        #expect(acknowledged.reduce(0, +) > 0, "no send was acknowledged: the workload tested nothing")
    }
}
