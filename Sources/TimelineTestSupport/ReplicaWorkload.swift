import Foundation
import Synchronization
import SystemShim

/// Real processes on replicas of one shared log (section 10 of the design): three
/// replicas cloned from `shared` (a file path or a PostgreSQL URL), each sending through
/// the tool (offline or not) and syncing, a quarter of the processes killed by SIGKILL at
/// a random moment; then every replica syncs until quiet. ``problems(sharedLines:)`` says
/// what broke the rules: a mirror that is not the shared log byte for byte, a command id
/// with two outcomes, a send acknowledged without an outcome, a rejection without its
/// notice, a submission still pending.
public struct ReplicaWorkload: Sendable {
    /// The `timeline` executable.
    public let tool: URL
    /// The shared log, as `--log` and `clone` take it.
    public let shared: String
    /// The replicas' paths.
    public let replicas: [String]
    /// Where the children's output goes.
    private let scratch: String
    /// Folder mode: the sequencer's copy of the shared folder, and each replica's copy
    /// (a ``FolderCopier`` copies files between them); `nil` when replicas reach the
    /// shared log itself.
    public let folders: (hub: String, copies: [String])?

    /// A workload of three replicas in `directory` of the shared log `shared`, which must
    /// already hold a timeline `life` with events `a`, `b`, `c` (``prepareShared()``);
    /// with `throughFolders`, replicas of a shared folder that a sequencer keeps.
    public init(tool: URL, shared: String, directory: String, throughFolders: Bool = false) {
        self.tool = tool
        self.shared = shared
        self.scratch = directory
        replicas = (0..<3).map { directory + "/r\($0).jsonl" }
        folders = throughFolders ? (directory + "/hub", (0..<3).map { directory + "/f\($0)" }) : nil
    }

    /// The failure of a step that must succeed.
    public struct StepFailed: Error, CustomStringConvertible {
        /// What was run and what it said.
        public let description: String
    }

    /// Makes the shared log's timeline and events, then clones every replica.
    public func prepareShared() throws {
        try mustSucceed(["create-timeline", "--log", shared, "--timeline", "life", "--name", "Life"])
        for event in ["a", "b", "c"] {
            try mustSucceed(["add-event", "--log", shared, "--timeline", "life", "--event", event, "--title", event,
                             "--date", "2000"])
        }
        if let folders {
            try mustSucceed(["sequence", "--log", shared, "--folder", folders.hub])
            let copier = FolderCopier(hub: folders.hub, copies: folders.copies, seed: 1)
            copier.settle()
            for (replica, folder) in zip(replicas, folders.copies) { try mustSucceed(["clone", folder, "--log", replica]) }
            return
        }
        for replica in replicas { try mustSucceed(["clone", shared, "--log", replica]) }
    }

    /// Runs 20 steps on each replica at once and returns how many sends each had
    /// acknowledged (exit status 0). `meanwhile` runs beside them (a server restarted).
    public func work(meanwhile: @escaping @Sendable () async -> Void = {}) async throws -> [Int] {
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            group.addTask {
                await meanwhile()
                return (-1, 0)
            }
            let running = Remaining(replicas.count)
            if let folders {
                // The file-sync service, with its faults, and the sequencer's runs (a
                // quarter killed), while the replicas work.
                group.addTask {
                    let copier = FolderCopier(hub: folders.hub, copies: folders.copies, seed: 11)
                    while running.count.load(ordering: .relaxed) > 0 {
                        copier.step()
                        try await Task.sleep(for: .milliseconds(Int.random(in: 1...15)))
                    }
                    return (-1, 0)
                }
                group.addTask {
                    var rng = SplitMix64(seed: 5)
                    var run = 0
                    while running.count.load(ordering: .relaxed) > 0 {
                        let name = scratch + "/s\(run)"
                        run += 1
                        let child = try SpawnedProcess(tool, ["sequence", "--log", shared, "--folder", folders.hub],
                                                       outputPath: name + ".out", errorPath: name + ".err")
                        if Int.random(in: 0..<4, using: &rng) == 0 {
                            try await Task.sleep(for: .milliseconds(Int.random(in: 1...40, using: &rng)))
                            child.send(SIGKILL)
                        }
                        child.waitUntilExit(timeout: .seconds(60))
                        try await Task.sleep(for: .milliseconds(Int.random(in: 10...80, using: &rng)))
                    }
                    return (-1, 0)
                }
            }
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
                        let name = scratch + "/w\(k)-\(step)"
                        let child = try SpawnedProcess(tool, arguments + ["--log", replica],
                                                       outputPath: name + ".out", errorPath: name + ".err")
                        if Int.random(in: 0..<4, using: &rng) == 0 {
                            try await Task.sleep(for: .milliseconds(Int.random(in: 1...40, using: &rng)))
                            child.send(SIGKILL)
                        }
                        child.waitUntilExit(timeout: .seconds(60))
                        // Acknowledged: the send returned (rejected by the view or the shared log: exit 1).
                        if arguments[0] != "sync", child.exitStatus == 0 { sent += 1 }
                    }
                    running.count.subtract(1, ordering: .relaxed)
                    return (k, sent)
                }
            }
            var counts = [Int](repeating: 0, count: replicas.count)
            for try await (k, sent) in group where k >= 0 { counts[k] = sent }
            return counts
        }
    }

    /// Every replica syncs, twice over, so that each learns the others' outcomes; through
    /// folders, with the service copying everything whole and the sequencer running between.
    public func heal() throws {
        if let folders {
            let copier = FolderCopier(hub: folders.hub, copies: folders.copies, seed: 2)
            for _ in 0..<3 {
                for replica in replicas { try mustSucceed(["sync", "--log", replica]) }
                copier.settle()
                try mustSucceed(["sequence", "--log", shared, "--folder", folders.hub])
                copier.settle()
            }
            for replica in replicas { try mustSucceed(["sync", "--log", replica]) }
            return
        }
        for _ in 0..<2 {
            for replica in replicas { try mustSucceed(["sync", "--log", replica]) }
        }
    }

    /// What breaks section 10's rules once healed, given the shared log's lines and the
    /// sends each replica had acknowledged; empty when everything holds.
    public func problems(sharedLines: Data, acknowledged: [Int]) throws -> [String] {
        var problems: [String] = []
        var outcomes: [String: Int] = [:]   // command id → batches
        var rejections: [String: Int] = [:] // device → rejections
        var remaining = 0
        for line in sharedLines.split(separator: UInt8(ascii: "\n")) {
            guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
                problems.append("a line of the shared log is not an object")
                continue
            }
            let command = object["cmd"] as? String
            if remaining == 0, let command {
                outcomes[command, default: 0] += 1
                if object["type"] as? String == "commandRejected" {
                    rejections[String(command.split(separator: ":")[0]), default: 0] += 1
                }
            }
            remaining = remaining == 0 ? (object["more"] as? Int ?? 0) : remaining - 1
        }
        for (command, count) in outcomes where count > 1 { problems.append("\(command) has \(count) outcomes") }
        for (k, replica) in replicas.enumerated() {
            if try Data(contentsOf: URL(fileURLWithPath: replica)) != sharedLines {
                problems.append("replica \(k)'s mirror is not the shared log")
            }
            let status = try mustSucceed(["status", "--log", replica, "--json"])
            guard let object = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any],
                  let device = object["device"] as? String else {
                problems.append("replica \(k)'s status names no device: \(status)")
                continue
            }
            if object["pending"] as? Int != 0 { problems.append("replica \(k) still has pending submissions: \(status)") }
            let mine = outcomes.keys.filter { $0.hasPrefix(device + ":") }.count
            if mine < acknowledged[k] {
                problems.append("replica \(k): \(acknowledged[k]) sends acknowledged, \(mine) outcomes")
            }
            if object["notices"] as? Int != rejections[device, default: 0] {
                problems.append("replica \(k): \(rejections[device, default: 0]) rejections, notices: \(status)")
            }
        }
        return problems
    }

    /// Runs the tool with `arguments` and returns its output; throws unless it exits 0.
    @discardableResult
    private func mustSucceed(_ arguments: [String]) throws -> String {
        let run = try SpawnedProcess.run(tool, arguments, timeout: .seconds(120))
        guard run.status == 0 else {
            throw StepFailed(description: "timeline \(arguments.joined(separator: " ")): status \(run.status): \(run.errors)")
        }
        return run.output
    }
}

/// How many replicas' workers still run (the copier and the sequencer stop after them).
private final class Remaining: Sendable {
    let count: Atomic<Int>
    init(_ count: Int) { self.count = Atomic(count) }
}
