import TimelineCore
import SystemShim
import Foundation

/// What to tell a person whose log is corrupt: that `timeline repair` moves the bad
/// lines aside and keeps the rest.
enum RepairHint {
    /// The hint's line for the log at `path`.
    static func line(for path: String) -> String {
        // A replica's mirror is a copy of the shared log: repair fetches it again.
        if FileReplicaStorage.isReplica(path) {
            return "to fetch this replica's mirror again from the shared log: timeline repair --log \(shellWord(path))"
        }
        return "to move the bad lines to \(path).rejected and keep the rest: timeline repair --log \(shellWord(path))"
    }

    /// `message`, followed by the hint when `applies` and the message does not point to
    /// `timeline repair` already; never for a database log, which repair does not apply to.
    static func added(to message: String, for path: String, when applies: Bool) -> String {
        guard applies, !DatabaseLogs.isURL(path), !message.contains("timeline repair") else { return message }
        return message + "\n" + line(for: path)
    }
}

/// `word` as one word of a shell command: as it is when it holds only characters that
/// need no quoting, else in single quotes, or with a control character in it, in ANSI-C
/// quotes (`$'a\nb'`).
func shellWord(_ word: String) -> String {
    let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "/._-+=:,@%".unicodeScalars.contains(scalar))
    }
    if plain { return word }
    guard hasControlCharacter(word) else { return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
    // A control character (a newline in a title) would break or reorder the line on a
    // terminal: ANSI-C quoting (bash, zsh) spells it as an escape that pastes back whole.
    var quoted = "$'"
    for scalar in word.unicodeScalars {
        switch scalar {
        case "\\": quoted += "\\\\"
        case "'": quoted += "\\'"
        case "\n": quoted += "\\n"
        case "\t": quoted += "\\t"
        case "\r": quoted += "\\r"
        case let scalar where scalar.properties.generalCategory == .control || isLayoutControl(scalar.value):
            // Its UTF-8 bytes, which bash decodes the same in every locale (`\u` needs UTF-8).
            for byte in String(scalar).utf8 {
                let hex = String(byte, radix: 16)
                quoted += "\\x" + (hex.count == 1 ? "0" : "") + hex
            }
        default: quoted.unicodeScalars.append(scalar)
        }
    }
    return quoted + "'"
}

extension EventLogError {
    /// Whether the log holds a line that is not a valid record: `timeline repair` helps.
    var isCorruption: Bool {
        if case .invalidLine = self { return true }
        return false
    }
}

extension Runner {
    /// Throws when there is no log at `path`, saying how to start one. Only the commands
    /// that create a timeline (`create-timeline`, `import`) create the file; every other
    /// command needs it to exist, so that a mistyped `--log` creates nothing.
    /// A store's log is a regular file: a FIFO, a socket or a device (never a log, and
    /// read as empty) is refused too.
    func requireLog(_ path: String) throws(CommandFailure) {
        var info = stat()
        if stat(path, &info) == 0 {
            let kind = info.st_mode & S_IFMT
            if kind == S_IFDIR {
                throw CommandFailure("\(path) is a directory, not a log file: --log names the log's file "
                    + "(such as \(path == "." ? "" : path + "/")timeline.jsonl)")
            }
            guard kind != S_IFIFO, kind != S_IFSOCK, kind != S_IFCHR, kind != S_IFBLK else {
                let what = kind == S_IFIFO ? "a FIFO" : kind == S_IFSOCK ? "a socket" : "a device"
                throw CommandFailure("\(path) is \(what), not a log file: a store's log is a regular file "
                    + "(to read a log from a pipe or a FIFO: timeline replay \(shellWord(path)))")
            }
            return
        }
        if errno != ENOENT { return }
        throw CommandFailure(missingLogMessage(path))
    }

    /// Whether `path` names a log file that does not exist yet, so that opening it creates
    /// the file (never for a database log).
    func logFileIsMissing(_ path: String) -> Bool {
        !DatabaseLogs.isURL(path) && access(path, F_OK) != 0
    }

    /// `there is no log at PATH; …` with the command that starts one.
    func missingLogMessage(_ path: String) -> String {
        let given = context.environment["TIMELINE_LOG"].map { !$0.isEmpty && $0 == path } ?? false
        if path == "timeline.jsonl", !given {
            return "there is no log at ./timeline.jsonl yet (the default log; --log PATH or $TIMELINE_LOG names "
                + "another)\nstart one with: timeline create-timeline --name NAME"
        }
        if given {
            return "there is no log at \(path) (from $TIMELINE_LOG)\n"
                + "start one with: timeline create-timeline --name NAME"
        }
        return "there is no log at \(path)\nstart one with: timeline create-timeline --name NAME --log \(shellWord(path))"
            + " (or: timeline import FILE --log \(shellWord(path)))"
    }
}
