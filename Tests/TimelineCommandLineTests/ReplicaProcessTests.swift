import Foundation
import Testing
import TimelineTestSupport

/// Real processes (section 10): three replicas of one shared file log, each sending and
/// syncing through the tool, some processes killed by SIGKILL at random moments (during
/// sends and syncs); then everyone syncs. Every mirror must be the shared log byte for
/// byte, every acknowledged submission must have exactly one outcome, and every
/// rejection a notice on its device.
@Suite("Replicas: real processes killed during syncs")
struct ReplicaProcessTests {
    @Test func killedReplicasLoseNothingAndConverge() async throws {
        guard let toolURL else { throw ToolNotFound() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.path("shared.jsonl")
        _ = try SpawnedProcess.run(toolURL, ["create-timeline", "--log", shared, "--timeline", "life", "--name", "Life"])
        for event in ["a", "b", "c"] {
            _ = try SpawnedProcess.run(toolURL, ["add-event", "--log", shared, "--timeline", "life", "--event", event,
                                                 "--title", event, "--date", "2000"])
        }
        let replicas = (0..<3).map { directory.path("r\($0).jsonl") }
        for replica in replicas { #expect(try SpawnedProcess.run(toolURL, ["clone", shared, "--log", replica]).status == 0) }

        // Each worker: 20 steps of sends (offline or not) and syncs; one in four killed.
        let acknowledged = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for (k, replica) in replicas.enumerated() {
                group.addTask {
                    var rng = SplitMix64(seed: UInt64(k) + 7)
                    var sent = 0
                    for step in 0..<20 {
                        let event = ["a", "b", "c", "n\(k)"].randomElement(using: &rng)!
                        var arguments: [String]
                        switch Int.random(in: 0..<6, using: &rng) {
                        case 0: arguments = ["remove-event", "--event", event]
                        case 1: arguments = ["add-event", "--timeline", "life", "--event", event, "--title", "N",
                                             "--date", "2001"]
                        case 2: arguments = ["sync"]
                        default: arguments = ["retitle-event", "--event", event, "--title", "T\(k).\(step)"]
                        }
                        if arguments[0] != "sync", Bool.random(using: &rng) { arguments.append("--offline") }
                        let child = try SpawnedProcess(toolURL, arguments + ["--log", replica], name: "w\(k)-\(step)",
                                                       scratch: directory.url.path)
                        if Int.random(in: 0..<4, using: &rng) == 0 {
                            try await Task.sleep(for: .milliseconds(Int.random(in: 1...40, using: &rng)))
                            child.send(SIGKILL)
                        }
                        child.waitUntilExit(timeout: .seconds(60))
                        // Acknowledged: the send returned (rejected by the view or the shared log: exit 1).
                        if arguments[0] != "sync", child.exitStatus == 0 { sent += 1 }
                    }
                    return (k, sent)
                }
            }
            var counts = [Int](repeating: 0, count: replicas.count)
            for try await (k, sent) in group { counts[k] = sent }
            return counts
        }

        // Healing: everyone syncs until quiet.
        for _ in 0..<2 {
            for replica in replicas {
                let run = try SpawnedProcess.run(toolURL, ["sync", "--log", replica])
                #expect(run.status == 0, "\(run.errors)")
            }
        }
        #expect(try SpawnedProcess.run(toolURL, ["verify", "--log", shared]).status == 0)
        let sharedBytes = try Data(contentsOf: URL(fileURLWithPath: shared))
        let lines = sharedBytes.split(separator: UInt8(ascii: "\n"))
        var outcomes: [String: Int] = [:]   // command id → batches
        var rejections: [String: Int] = [:] // device → rejections
        var remaining = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            let command = object["cmd"] as? String
            if remaining == 0, let command {
                outcomes[command, default: 0] += 1
                if object["type"] as? String == "commandRejected" {
                    rejections[String(command.split(separator: ":")[0]), default: 0] += 1
                }
            }
            remaining = remaining == 0 ? (object["more"] as? Int ?? 0) : remaining - 1
        }
        #expect(outcomes.values.allSatisfy { $0 == 1 }, "a command id with two outcomes: \(outcomes)")
        for (k, replica) in replicas.enumerated() {
            #expect(try Data(contentsOf: URL(fileURLWithPath: replica)) == sharedBytes, "replica \(k)'s mirror differs")
            let status = try SpawnedProcess.run(toolURL, ["status", "--log", replica, "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
            let device = try #require(object["device"] as? String)
            #expect(object["pending"] as? Int == 0)
            let mine = outcomes.keys.filter { $0.hasPrefix(device + ":") }.count
            #expect(mine >= acknowledged[k], "replica \(k): \(acknowledged[k]) acknowledged, \(mine) outcomes")
            #expect(object["notices"] as? Int == rejections[device, default: 0])
        }
    }
}
