#if canImport(Glibc)
import Glibc
#endif

/// Whether the executable starts itself again with glibc's heap in transparent huge pages,
/// for a command that reads a whole log.
///
/// Reading a log of a million records builds hundreds of megabytes of state; faulting them
/// in one 4 KiB page at a time was a sixth of an import's processor time (the kernel
/// clearing each page). Where the kernel gives huge pages only to memory that asks for them
/// (`transparent_hugepage` in `madvise` mode, the usual default), glibc's allocator asks only
/// when the tunable `glibc.malloc.hugetlb=1` is set, and it reads its tunables once, before
/// `main`: so the executable sets the tunable and starts again, in the same process. A
/// `GLIBC_TUNABLES` that already names `glibc.malloc.hugetlb` (`=0` to opt out) is left as
/// it is; so is a kernel in `always` mode (nothing to ask) or `never` mode (nothing to get).
package enum HugePageHeap {
    /// The commands that read a whole log, where starting again (about 10 ms) pays.
    static let commands: Set<String> = ["import", "replay", "verify", "rebuild"]

    /// The tunable that makes glibc's allocator ask for huge pages.
    static let tunable = "glibc.malloc.hugetlb"

    /// The `GLIBC_TUNABLES` to start again with, or `nil` to go on as started.
    /// - Parameters:
    ///   - arguments: the tool's arguments, without the program's name.
    ///   - tunables: the `GLIBC_TUNABLES` the process started with, if any.
    ///   - kernelMode: the text of `/sys/kernel/mm/transparent_hugepage/enabled`
    ///     (`always [madvise] never`: the mode in brackets), if readable.
    package static func restartTunables(arguments: [String], tunables: String?, kernelMode: String?) -> String? {
        guard let command = arguments.first, commands.contains(command),
              let kernelMode, kernelMode.contains("[madvise]") else { return nil }
        guard let tunables, !tunables.isEmpty else { return tunable + "=1" }
        if tunables.contains(tunable) { return nil }
        return tunables + ":" + tunable + "=1"
    }

    #if canImport(Glibc)
    /// Starts the executable again with huge pages asked for, when ``restartTunables(arguments:tunables:kernelMode:)``
    /// says so; returns only when it does not, or when starting again failed (the command
    /// then runs as it is, only slower).
    package static func restartIfUseful() {
        let current = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        guard let tunables = restartTunables(arguments: Array(CommandLine.arguments.dropFirst()),
                                             tunables: current, kernelMode: kernelMode()),
              setenv("GLIBC_TUNABLES", tunables, 1) == 0 else { return }
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Still here: the environment goes back to what it was.
        if let current { setenv("GLIBC_TUNABLES", current, 1) } else { unsetenv("GLIBC_TUNABLES") }
    }

    /// The kernel's transparent huge page mode, as its settings file says it.
    private static func kernelMode() -> String? {
        guard let file = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #endif
}
