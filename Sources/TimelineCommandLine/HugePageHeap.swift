import SystemShim

/// Whether the executable starts itself again with glibc's heap in transparent huge pages,
/// for a command that reads a whole log.
///
/// Reading a log of a million records builds hundreds of megabytes of state, and faulting
/// them in one 4 KiB page at a time (the kernel clearing each page) costs a large share of
/// such a command's processor time. Where the kernel gives huge pages only to memory that asks for them
/// (`transparent_hugepage` in `madvise` mode, the usual default), glibc's allocator asks only
/// when the tunable `glibc.malloc.hugetlb=1` is set, and it reads its tunables once, before
/// `main`: so the executable sets the tunable and starts again, in the same process. A
/// `GLIBC_TUNABLES` that already names `glibc.malloc.hugetlb` (`=0` to opt out) is left as
/// it is; so is a kernel in `always` mode (nothing to ask) or `never` mode (nothing to get).
package enum HugePageHeap {
    /// The commands that read a whole log, where starting again (about 10 ms) pays.
    static let commands: Set<String> = ["import", "replay", "verify", "rebuild", "export"]

    /// The tunable that makes glibc's allocator ask for huge pages.
    static let tunable = "glibc.malloc.hugetlb"

    /// The `GLIBC_TUNABLES` to start again with, or `nil` to go on as started.
    ///
    /// `import` `-` (standard input) too: nothing has been read when the process starts again.
    /// - Parameters:
    ///   - arguments: the tool's arguments, without the program's name.
    ///   - tunables: the `GLIBC_TUNABLES` the process started with, if any.
    ///   - kernelMode: the text of `/sys/kernel/mm/transparent_hugepage/enabled`
    ///     (`always [madvise] never`: the mode in brackets), if readable.
    ///   - startedAgain: whether this process was started again already (never twice).
    package static func restartTunables(arguments: [String], tunables: String?, kernelMode: String?,
                                        startedAgain: Bool = false) -> String? {
        guard !startedAgain, let command = arguments.first, commands.contains(command),
              let kernelMode, kernelMode.contains("[madvise]") else { return nil }
        guard let tunables, !tunables.isEmpty else { return tunable + "=1" }
        if tunables.contains(tunable) { return nil }
        return tunables + ":" + tunable + "=1"
    }

    #if canImport(Glibc)
    /// Set in the environment of the process started again, which removes it: whatever
    /// glibc makes of the tunable, a process never starts itself again twice.
    static let restartedMarker = "TIMELINE_STARTED_WITH_HUGE_PAGES"

    /// Starts the executable again with huge pages asked for, when ``restartTunables(arguments:tunables:kernelMode:)``
    /// says so; returns only when it does not, or when starting again failed (the command
    /// then runs as it is, only slower).
    ///
    /// Never in a secure-execution process (setuid, capabilities: glibc drops the tunable
    /// there), nor when the executable is not what `/proc/self/exe` names (started through
    /// the dynamic loader, or under another name: starting that again could start
    /// something else).
    package static func restartIfUseful() {
        let startedAgain = getenv(restartedMarker) != nil
        if startedAgain { unsetenv(restartedMarker) }
        let current = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        guard !isSecureExecution(), isProcessExecutable(),
              let tunables = restartTunables(arguments: Array(CommandLine.arguments.dropFirst()), tunables: current,
                                             kernelMode: kernelMode(), startedAgain: startedAgain),
              setenv("GLIBC_TUNABLES", tunables, 1) == 0, setenv(restartedMarker, "1", 1) == 0 else { return }
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Still here: the environment goes back to what it was.
        unsetenv(restartedMarker)
        if let current { setenv("GLIBC_TUNABLES", current, 1) } else { unsetenv("GLIBC_TUNABLES") }
    }

    /// Whether the process runs in secure-execution mode (`AT_SECURE`: setuid, setgid,
    /// capabilities), where glibc ignores the tunable; when that cannot be told, it does.
    private static func isSecureExecution() -> Bool {
        // getauxval(3) is glibc's, but its header is not part of the Glibc module.
        typealias GetAuxiliaryValue = @convention(c) (UInt) -> UInt
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getauxval") else { return true }
        let atSecure: UInt = 23
        return unsafeBitCast(symbol, to: GetAuxiliaryValue.self)(atSecure) != 0
    }

    /// Whether `/proc/self/exe` is the program that the arguments name (the same file
    /// name): not so when the dynamic loader was started with the program as an argument.
    private static func isProcessExecutable() -> Bool {
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &target, target.count - 1)
        guard length > 0, let name = CommandLine.arguments.first else { return false }
        let path = String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.split(separator: "/").last == name.split(separator: "/").last
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
