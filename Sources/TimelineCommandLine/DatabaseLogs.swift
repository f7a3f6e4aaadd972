import Synchronization
import TimelineCore
import TimelineKit
#if PostgreSQL
import TimelinePostgres
#endif

/// Logs in a PostgreSQL database, named by a URL wherever the tool takes a store's log:
/// `postgresql://USER@HOST:PORT/DATABASE?log=NAME` (or `postgres://`).
///
/// The tool names a log by the URL in its messages; for a database log that is the URL
/// without its password (``name(for:)``), and the URL given is kept here to connect.
enum DatabaseLogs {
    /// Whether `text` names a database log rather than a file (``LogLocation/isDatabaseURL(_:)``).
    static func isURL(_ text: String) -> Bool { LogLocation.isDatabaseURL(text) }

    /// Why `text`, given as a log (`what` names where: `--log`, `$TIMELINE_LOG`), reads as
    /// a mistyped URL rather than a path: another scheme's `SCHEME://…` (only PostgreSQL
    /// logs are named by URL), or `postgresql:`/`postgres:` without `//` (which would name
    /// a file of that name); `nil` for a path or a PostgreSQL URL.
    static func mistypedURL(_ text: String, as what: String) -> String? {
        guard !isURL(text) else { return nil }
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgresql:") || lowered.hasPrefix("postgres:") {
            return "\(what) \(displayText(redacted(text).shown)) is not a PostgreSQL URL: one begins postgresql:// "
                + "(for a log file of that name, give it as ./\(displayText(text)))"
        }
        guard let schemeEnd = text.firstRange(of: "://"), !text[..<schemeEnd.lowerBound].isEmpty,
              text[..<schemeEnd.lowerBound].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
        else { return nil }
        return "\(what) \(displayText(redacted(text).shown)) is a URL of another kind: only postgresql:// URLs name "
            + "database logs; a log file is named by its path"
    }

    /// `url` without its password: the userinfo's (`USER:PASSWORD@`) and any `password=`
    /// query parameter taken out, whatever else the URL holds (an invalid log name
    /// included). The one redaction of a database URL that every message uses, with the
    /// passwords it took out (as written and percent-decoded), to scrub them from messages
    /// that quote the URL some other way (``scrubbed(_:)``).
    static func redacted(_ url: String) -> (shown: String, secrets: [String]) {
        guard let schemeEnd = url.firstRange(of: "://") else { return (url, []) }
        let rest = url[schemeEnd.upperBound...]
        let queryStart = rest.firstIndex(of: "?")
        let beforeQuery = rest[..<(queryStart ?? rest.endIndex)]
        let authorityEnd = beforeQuery.firstIndex(of: "/") ?? beforeQuery.endIndex
        var authority = String(beforeQuery[..<authorityEnd])
        var secrets: [String] = []
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            secrets.append(String(authority[authority.index(after: colon)..<at]))
            authority = String(authority[..<colon]) + String(authority[at...])
        }
        var shownParameters: [Substring] = []
        if let queryStart {
            for parameter in rest[rest.index(after: queryStart)...].split(separator: "&") {
                let name = parameter.prefix { $0 != "=" }
                if percentDecoded(String(name)).lowercased() == "password" {
                    secrets.append(String(parameter.dropFirst(name.count + 1)))
                } else {
                    shownParameters.append(parameter)
                }
            }
        }
        secrets = secrets.filter { !$0.isEmpty }
        secrets += secrets.map(percentDecoded).filter { !secrets.contains($0) }
        let shown = String(url[..<schemeEnd.upperBound]) + authority + String(beforeQuery[authorityEnd...])
            + (shownParameters.isEmpty ? "" : "?" + shownParameters.joined(separator: "&"))
        return (shown, secrets)
    }

    /// The passwords of the database URLs this run was given, to scrub from every message.
    private static let secrets = Mutex<Set<String>>([])

    /// Notes the passwords of any database URL in `texts` (the command line, the
    /// environment's `TIMELINE_LOG`), wherever it starts in them (`NAME=postgresql://…`),
    /// before anything can quote them.
    static func noteSecrets(in texts: [String]) {
        for text in texts where text.contains("://") {
            let lowered = Array(text.lowercased().utf8)
            let bytes = Array(text.utf8)
            guard lowered.count == bytes.count else { continue }
            var start = 0
            while let found = lowered[start...].firstRange(of: Array("postgres".utf8)) {
                let candidate = String(decoding: bytes[found.lowerBound...], as: UTF8.self)
                if isURL(candidate) {
                    let secrets = redacted(candidate).secrets
                    if !secrets.isEmpty { Self.secrets.withLock { $0.formUnion(secrets) } }
                }
                start = found.upperBound
            }
        }
    }

    /// `message` with every noted password of 4 characters or more replaced by `***`: a
    /// second net under ``redacted(_:)``, for a message that quotes a URL as given (a file
    /// of that name not found, an unexpected argument). A shorter password is left to the
    /// redaction alone: scrubbing it would garble every message.
    static func scrubbed(_ message: String) -> String {
        let noted = secrets.withLock { $0 }
        guard !noted.isEmpty else { return message }
        var text = message
        for secret in noted.sorted(by: { $0.count > $1.count }) where secret.count >= 4 {
            text = text.replacing(secret, with: "***")
        }
        return text
    }

    /// `text` with each `%XX` replaced by the byte it stands for.
    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The URLs given, by the names the tool shows for them.
    private static let given = Mutex<[String: String]>([:])

    /// The name to show for the log at `url` (its URL without the password); `url` is
    /// remembered, to connect with.
    static func name(for url: String) -> String {
        let (shown, secrets) = redacted(url)
        if !secrets.isEmpty { Self.secrets.withLock { $0.formUnion(secrets) } }
        #if PostgreSQL
        // A URL that names no valid log (a bad log name) is shown redacted: opening it says why.
        guard (try? PostgresLocation(url: url)) != nil else { return shown }
        #endif
        let name = LogLocation(url).description
        // The name itself, given again, must not replace the URL it stands for.
        if url != name { given.withLock { $0[name] = url } }
        return name
    }

    /// The log shown as `name`: the URL given for it on this run (its password included),
    /// else the name itself (a file's path, or a URL without a password).
    static func location(_ name: String) -> LogLocation {
        LogLocation(given.withLock { $0[name] } ?? name)
    }

    /// Opens the database log shown as `name`. Only a command that creates a log
    /// (`create-timeline`, `import`) passes `ifMissing: nil`; for any other, a log that is
    /// not in the database is refused with `ifMissing`, and nothing is created.
    static func open(_ name: String, ifMissing: String?) throws(CommandFailure) -> any EventLog {
        do {
            return try location(name).open(creating: ifMissing == nil)
        } catch .missing {
            throw CommandFailure(ifMissing ?? "")
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// The whole database log shown as `name`, read as the file log's lines would be; a log
    /// that is not there is refused with `ifMissing`.
    static func read(_ name: String, ifMissing: String) throws -> LogReader.Contents {
        let log = try open(name, ifMissing: ifMissing)
        defer { log.close() }
        #if PostgreSQL
        guard let log = log as? PostgresEventLog else { throw CommandFailure("\(name): not a database log") }
        do {
            return try LogReader().read(try log.jsonLines())
        } catch let error as EventLogError {
            throw CommandFailure(error.description)
        } catch let error as LogReader.Failure {
            throw CommandFailure("\(name): record \(error.line): \(error.reason)")
        }
        #else
        throw CommandFailure(LogLocationError.notBuilt.description)
        #endif
    }

    /// What to say when the database log shown as `name` gets no checkpoint because its
    /// cache directory cannot be made (`$XDG_CACHE_HOME` a file, a directory it may not write).
    static func noCheckpointWarning(_ name: String, _ error: LogLocationError) -> String {
        "\(name): no checkpoint is kept, so each command reads the whole log: \(error) "
            + "(set $XDG_CACHE_HOME to a directory of yours)"
    }

    /// Why `repair` refuses a URL.
    static func repairDoesNotApply(_ name: String) -> String {
        "\(name): repair does not apply to a PostgreSQL log: the database keeps every record whole "
            + "(a batch is one transaction), so there are no torn or damaged lines to move aside"
    }
}
