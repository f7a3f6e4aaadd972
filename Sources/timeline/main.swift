import SystemShim
import TimelineCommandLine

// Before anything opens a file: a log must never take the number of a closed standard output.
TimelineTool.holdClosedStandardDescriptors()

#if canImport(Glibc)
// Before anything is read: a command that reads a whole log may start again, see HugePageHeap.
HugePageHeap.restartIfUseful()
#endif

let status = await TimelineTool.run(Array(CommandLine.arguments.dropFirst()))
if status == TimelineTool.closedOutput { TimelineTool.endAsByClosedPipe() }
exit(status)
