import Foundation
import Testing
import TimelineTestSupport
@testable import TimelineCommandLine

/// When the executable starts itself again with glibc's heap in transparent huge pages.
@Suite("the heap in huge pages")
struct HugePageHeapTests {
    static let madvise = "always [madvise] never\n"

    @Test func aCommandThatReadsAWholeLogAsksForHugePagesWhereTheKernelGivesThemOnlyWhenAsked() {
        for command in ["import", "replay", "verify", "rebuild", "export"] {
            #expect(HugePageHeap.restartTunables(arguments: [command, "x.jsonl"], tunables: nil, kernelMode: Self.madvise)
                    == "glibc.malloc.hugetlb=1", "\(command)")
        }
        #expect(HugePageHeap.restartTunables(arguments: ["import", "-"], tunables: "", kernelMode: Self.madvise)
                == "glibc.malloc.hugetlb=1")
    }

    @Test func otherTunablesAreKept() {
        #expect(HugePageHeap.restartTunables(arguments: ["replay", "x.jsonl"], tunables: "glibc.malloc.arena_max=2",
                                             kernelMode: Self.madvise)
                == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")
    }

    @Test func aTunableAlreadySetIsLeftAsItIsSoThatItCanOptOutAndNothingStartsTwice() {
        for tunables in ["glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=1", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0"] {
            #expect(HugePageHeap.restartTunables(arguments: ["import", "x.jsonl"], tunables: tunables,
                                                 kernelMode: Self.madvise) == nil, "\(tunables)")
        }
    }

    @Test func aProcessStartedAgainNeverStartsAgainWhateverGlibcMadeOfTheTunable() {
        #expect(HugePageHeap.restartTunables(arguments: ["import", "x.jsonl"], tunables: nil, kernelMode: Self.madvise,
                                             startedAgain: true) == nil)
    }

    @Test func quickCommandsAndOtherKernelModesGoOnAsStarted() {
        for arguments in [["rows"], ["add-event", "--title", "x"], ["--help"], ["--version"], [], ["replay-x"]] {
            #expect(HugePageHeap.restartTunables(arguments: arguments, tunables: nil, kernelMode: Self.madvise) == nil,
                    "\(arguments)")
        }
        for mode in ["[always] madvise never\n", "always madvise [never]\n", nil] {
            #expect(HugePageHeap.restartTunables(arguments: ["import", "x"], tunables: nil, kernelMode: mode) == nil,
                    "\(mode ?? "no file")")
        }
    }

    #if canImport(Glibc)
    /// The running import, waiting for its input on a FIFO, is the same process started
    /// again with the tunable in its environment.
    @Test(.enabled(if: (try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8))?
        .contains("[madvise]") == true, "the kernel gives huge pages without asking, or never"))
    func theExecutableStartsItselfAgainWithTheTunableForAnImport() async throws {
        let tool = try #require(toolURL, "timeline not built")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path("input")
        try #require(mkfifo(fifo, 0o600) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["GLIBC_TUNABLES"] = nil
        let importing = try SpawnedProcess(tool, ["import", fifo, "--log", directory.path("log.jsonl")],
                                           environment: environment, outputPath: directory.path("out"),
                                           errorPath: directory.path("err"))
        defer { importing.killNow() }
        func environ() -> [String] {
            guard let data = FileManager.default.contents(atPath: "/proc/\(importing.pid)/environ") else { return [] }
            return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        }
        let restarted = await eventually(until: .now + .seconds(30)) {
            environ().contains("GLIBC_TUNABLES=glibc.malloc.hugetlb=1") || !importing.isRunning
        }
        try #require(restarted && importing.isRunning, "\(environ().filter { $0.hasPrefix("GLIBC") }) \(importing.errors)")
        // The input ends empty: the restarted import runs to its end as usual. (Without
        // blocking: a writer's open fails at once when the reader has gone.)
        // The restarted process has the tunable from its first instruction, and opens the
        // FIFO a moment later: a writer's open fails until it has.
        var writer: Int32 = -1
        _ = await eventually(until: .now + .seconds(30)) {
            writer = open(fifo, O_WRONLY | O_NONBLOCK)
            return writer >= 0 || !importing.isRunning
        }
        try #require(writer >= 0, "the import is not reading its input")
        close(writer)
        #expect(await importing.waitForExit(until: .now + .seconds(30)))
        #expect(importing.exitStatus == 0, "\(importing.errors)")
        #expect(importing.output.contains("nothing to import"), "\(importing.output)")
    }
    #endif
}
