import Foundation
import Synchronization

extension Runner {
    /// Ends the process with status 0 at SIGINT (Ctrl-C), as every command that watches
    /// until interrupted does. Keep the returned source while watching.
    func exitingOnInterrupt() -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { exit(TimelineTool.success) }
        interrupt.resume()
        return interrupt
    }
}

/// What a command that runs again and again (`sync --watch`, `sequence --watch`) prints:
/// each run's text when it has some, and each new reason a run failed, once, until a run
/// succeeds again. A failed write to standard output ends the command with status 1, as at
/// the end of any command (a closed pipe ends it quietly, in `writeAsItGoes`).
final class RunReporter: Sendable {
    private let runner: Runner
    private let lastProblem = Mutex<String?>(nil)

    init(_ runner: Runner) { self.runner = runner }

    /// A run succeeded; `text`, if any, is printed.
    func succeeded(printing text: String?) {
        lastProblem.withLock { $0 = nil }
        guard let text else { return }
        do throws(CommandFailure) { try runner.writeAsItGoes(text) } catch {
            runner.context.diagnose(error.message)
            exit(TimelineTool.failure)
        }
    }

    /// A run failed for `reason`: said unless it is the reason the last run failed for.
    func failed(_ reason: String) {
        guard lastProblem.withLock({ last in defer { last = reason }; return last != reason }) else { return }
        runner.context.warn(reason)
    }
}
