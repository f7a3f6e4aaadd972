#if PostgreSQL
import TimelineCore

/// Where a PostgreSQL log is: a connection URL (`postgresql://` or `postgres://`) with one
/// parameter of ours, `log=NAME`, which is taken out before the URL reaches libpq (libpq
/// refuses parameters it does not know).
public struct PostgresLocation: Sendable, Hashable {
    /// The log's name within its database: 1–63 of `A–Z a–z 0–9 _ . -`.
    public let log: String
    /// The URL for libpq: the given one without `log`.
    let connectionString: String
    /// The URL for messages: without the password, with `log`.
    public let displayName: String
    /// The password the URL holds (userinfo or `password=`), to scrub from messages.
    private let passwords: [String]

    /// The log used when the URL names none.
    public static let defaultLog = "timeline"

    /// Whether `text` is a PostgreSQL connection URL rather than a file's path: it starts
    /// with `postgresql://` or `postgres://`, in any case (schemes are case-insensitive).
    public static func isURL(_ text: String) -> Bool {
        let scheme = text.prefix(13).lowercased()
        return scheme.hasPrefix("postgresql://") || scheme.hasPrefix("postgres://")
    }

    /// Reads a connection URL.
    /// - Throws: ``EventLogError/database(log:message:)`` for a URL that is not one, or an
    ///   invalid log name.
    public init(url: String) throws(EventLogError) {
        guard let schemeEnd = url.firstRange(of: "://"), Self.isURL(url) else {
            // Named by its scheme alone: what follows may hold a password.
            let shown = url.firstRange(of: "://").map { url[..<$0.upperBound] + "…" } ?? url
            throw .database(log: String(shown), message: "not a PostgreSQL URL: expected postgresql://USER@HOST:PORT/DATABASE?log=NAME")
        }
        // One spelling for every spelling of the scheme, so that libpq takes it and one log
        // has one name (and one checkpoint) however its URL was written.
        let scheme = "postgresql://"
        let afterScheme = url[schemeEnd.upperBound...]
        let queryStart = afterScheme.firstIndex(of: "?")
        let beforeQuery = afterScheme[..<(queryStart ?? afterScheme.endIndex)]
        let query = queryStart.map { afterScheme[afterScheme.index(after: $0)...] } ?? ""
        let authorityEnd = beforeQuery.firstIndex(of: "/") ?? beforeQuery.endIndex
        let authority = beforeQuery[..<authorityEnd]
        let pathPart = beforeQuery[authorityEnd...]

        var passwords: [String] = []
        var shownAuthority = String(authority)
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                let password = String(userInfo[userInfo.index(after: colon)...])
                passwords.append(password)
                shownAuthority = String(userInfo[..<colon]) + String(authority[at...])
            }
        }
        var log: String?
        var secondLog: String?
        var kept: [Substring] = []
        var shown: [Substring] = []
        for parameter in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name = parameter.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let value = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first
                .map(String.init) ?? ""
            switch name {
            case "log":
                if log != nil { secondLog = secondLog ?? value } else { log = Self.percentDecoded(value) }
            case "password":
                passwords.append(value)
                kept.append(parameter)
            default:
                kept.append(parameter)
                shown.append(parameter)
            }
        }
        passwords = passwords.filter { !$0.isEmpty }
        passwords += passwords.map(Self.percentDecoded).filter { !passwords.contains($0) }
        let name = log ?? Self.defaultLog
        let base = scheme + authority + pathPart
        let shownBase = scheme + shownAuthority + pathPart
        connectionString = kept.isEmpty ? base : base + "?" + kept.joined(separator: "&")
        displayName = shownBase + "?" + (shown + ["log=\(name)"]).joined(separator: "&")
        self.passwords = passwords
        if let secondLog {
            throw .database(log: displayName, message: "the URL names the log twice (log=\(name)&log=\(secondLog)): "
                + "give one ?log=NAME")
        }
        guard Self.isValidLogName(name) else {
            throw .database(log: displayName, message: "invalid log name \"\(name)\": a log name is 1–63 of "
                + "A–Z a–z 0–9 _ . - (give it as ?log=NAME)")
        }
        self.log = name
    }

    /// Whether `name` is 1–63 of `A–Z a–z 0–9 _ . -`.
    public static func isValidLogName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...63).contains(bytes.count) && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    /// `message` without the password or the connection string (libpq may echo either).
    func scrub(_ message: String) -> String {
        var text = message.replacing(connectionString, with: displayName)
        for password in passwords { text = text.replacing(password, with: "***") }
        return text
    }

    private static func percentDecoded(_ text: String) -> String {
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
}

#endif
