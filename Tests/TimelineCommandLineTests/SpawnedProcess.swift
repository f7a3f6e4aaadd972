import Foundation
import Testing
import TimelineTestSupport

extension SpawnedProcess {
    /// Starts `executable` with `arguments` and this process's environment without
    /// `TIMELINE_LOG` (a test names its log itself); its output goes to `scratch/NAME.out`
    /// and `.err`.
    convenience init(_ executable: URL, _ arguments: [String], name: String, scratch: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["TIMELINE_LOG"] = nil
        try self.init(executable, arguments, environment: environment,
                      outputPath: scratch + "/\(name).out", errorPath: scratch + "/\(name).err")
    }
}

/// `timeline watch --log log --now MultiProcessTests.now --json` (and `options`), started and
/// past its first line; its output goes to `directory/watch.out` and `.err`.
func startedWatch(_ tool: URL, log: String, _ options: [String] = [], in directory: TemporaryDirectory)
    async throws -> SpawnedProcess {
    let watcher = try SpawnedProcess(tool, ["watch", "--log", log, "--now", MultiProcessTests.now, "--json"] + options,
                                     name: "watch", scratch: directory.url.path)
    let started = await eventually(until: .now + .seconds(60)) { !watcher.outputLines.isEmpty || !watcher.isRunning }
    try #require(started && watcher.isRunning, "watch did not start: \(watcher.errors)")
    return watcher
}

/// Appends `text` to the file at `path`, as a process that is not Timeline would.
func appendForeign(_ text: String, to path: String) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
}

/// Waits until `condition` holds or `deadline` has passed; returns whether it holds.
func eventually(until deadline: ContinuousClock.Instant, _ condition: () -> Bool) async -> Bool {
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

@Suite("Child processes of the tests")
struct SpawnedProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")
    static let sleep = URL(fileURLWithPath: "/bin/sleep")

    @Test func runCollectsStatusOutputAndErrorsWithTheGivenEnvironmentAndDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try SpawnedProcess.run(Self.shell, ["-c", "pwd -P; printf '%s\\n' \"$GREETING\"; echo oops >&2; exit 3"],
                                          environment: ["GREETING": "hé"], currentDirectory: directory.url)
        #expect(result.status == 3)
        #expect(result.output == directory.url.resolvingSymlinksInPath().path + "\nhé\n")
        #expect(result.errors == "oops\n")
    }

    @Test func withoutAnEnvironmentTheChildGetsThisProcesssOwn() throws {
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        let result = try SpawnedProcess.run(Self.shell, ["-c", "printf '%s' \"$PATH\""])
        #expect(result.status == 0)
        #expect(result.output == path)
    }

    @Test func aChildStillRunningAtItsTimeoutIsKilled() throws {
        let result = try SpawnedProcess.run(Self.sleep, ["600"], timeout: .milliseconds(100))
        #expect(result.status == SIGKILL)
    }

    @Test func aSignalThatEndsTheChildIsReportedAndKillingItAfterwardsChangesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try SpawnedProcess(Self.sleep, ["600"], name: "sleeper", scratch: directory.url.path)
        #expect(child.isRunning && child.exitStatus == nil && child.terminatingSignal == nil)
        child.send(SIGTERM)
        #expect(await child.waitForExit(until: .now + .seconds(60)))
        #expect(child.terminatingSignal == SIGTERM)
        #expect(child.exitStatus == nil)
        child.killNow()
        #expect(child.terminatingSignal == SIGTERM, "killing an ended child changed how it ended")
    }

    @Test func killNowKillsAndReapsARunningChild() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try SpawnedProcess(Self.sleep, ["600"], name: "sleeper", scratch: directory.url.path)
        child.killNow()
        #expect(!child.isRunning)
        #expect(child.terminatingSignal == SIGKILL)
    }

    @Test func aProgramThatCannotStartIsNamedInTheError() throws {
        let missing = "/nonexistent-\(UUID().uuidString)/program"
        let error = #expect(throws: SpawnedProcess.StartFailure.self) {
            try SpawnedProcess.run(URL(fileURLWithPath: missing), [])
        }
        #expect(error?.code == ENOENT)
        #expect(error?.description.contains(missing) == true)
    }
}
