import TimelineCommandLine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

exit(await TimelineTool.run(Array(CommandLine.arguments.dropFirst())))
