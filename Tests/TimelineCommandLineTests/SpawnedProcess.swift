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
