import Testing
@testable import TimelineCore

/// The library's messages say what to do in words any front end can act on; the tool adds
/// its own commands (a SwiftUI app has no `timeline clone` to run).
@Suite("Library messages name no tool command")
struct LibraryMessageTests {
    static let replicaErrors: [ReplicaError] = [
        .unreachable(shared: "shared.jsonl", reason: "connection refused"),
        .noSharedLog(shared: "shared.jsonl"),
        .damaged(path: "local.jsonl.pending", reason: "line 4: not a submission (P…)"),
        .sharedLogDamaged(shared: "shared.jsonl", reason: "line 3: not valid JSON"),
        .sharedLogChanged(shared: "shared.jsonl", position: 7),
        .storage(path: "local.jsonl.queue", reason: "No space left on device"),
        .damaged(path: "local.jsonl", reason: "it does not read"),
        .stopped(conflict: SubmissionID(commandID: "0190f2a4-5b6c-7d8e-9f01-23456789abcd:3")!),
        .interrupted(step: "push"),
        .notSharedFolder(path: "Shared"),
        .folderLayout(path: "Shared", layout: 2),
        .folderLayout(path: "Shared", layout: nil),
    ]

    static let logErrors: [EventLogError] = [
        .appendMayHaveLanded(path: "life.jsonl", operation: "fsync", code: 5),
        .commitOutcomeUnknown(log: "postgresql://db", reason: "server closed the connection"),
        .replaced(path: "life.jsonl"),
        .inUse(path: "life.jsonl"),
    ]

    @Test(arguments: replicaErrors.map(\.description) + logErrors.map(\.description))
    func aMessageSaysWhatToDoWithoutTheToolsCommands(_ message: String) {
        #expect(!message.contains("`timeline") && !message.contains("'timeline"), "\(message)")
        #expect(!message.isEmpty)
    }
}
