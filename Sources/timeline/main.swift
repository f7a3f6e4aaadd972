import TimelineCommandLine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
// Before anything is read: a command that reads a whole log may start again, see HugePageHeap.
HugePageHeap.restartIfUseful()
#endif

let status = await TimelineTool.run(Array(CommandLine.arguments.dropFirst()))
if status == TimelineTool.closedOutput {
    // The reader of standard output went away: end as a pipeline expects, by SIGPIPE,
    // even when it was ignored when the write failed.
    signal(SIGPIPE, SIG_DFL)
    raise(SIGPIPE)
}
exit(status)
