import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TimelineCore
#if PostgreSQL
import TimelinePostgres
#endif

/// Logs in a PostgreSQL database, named by a URL wherever the tool takes a store's log:
/// `postgresql://USER@HOST:PORT/DATABASE?log=NAME` (or `postgres://`).
///
/// The tool names a log by the URL in its messages; for a database log that is the URL
/// without its password (``name(for:)``), and the URL given is kept here to connect.
enum DatabaseLogs {
    /// Whether `text` names a database log rather than a file.
    static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// The URLs given, by the names the tool shows for them.
    private static let given = Mutex<[String: String]>([:])

    /// The name to show for the log at `url` (its URL without the password); `url` is
    /// remembered, to connect with.
    static func name(for url: String) -> String {
        #if PostgreSQL
        guard let location = try? PostgresLocation(url: url) else { return url }
        // The name itself, given again, must not replace the URL it stands for.
        if url != location.displayName { given.withLock { $0[location.displayName] = url } }
        return location.displayName
        #else
        // Still a URL (so that opening it refuses, saying how to build with PostgreSQL),
        // without anything of the one given.
        return url.hasPrefix("postgres://") ? "postgres://" : "postgresql://"
        #endif
    }

    #if PostgreSQL
    /// Opens the database log shown as `name`.
    static func open(_ name: String) throws -> PostgresEventLog {
        do {
            return try PostgresEventLog(url: given.withLock { $0[name] } ?? name)
        } catch {
            throw CommandFailure(error.description)
        }
    }
    #else
    /// Refuses: this build has no PostgreSQL log.
    static func open(_ name: String) throws -> any EventLog {
        throw CommandFailure(notBuilt)
    }
    #endif

    /// The whole database log shown as `name`, read as the file log's lines would be.
    static func read(_ name: String) throws -> LogReader.Contents {
        #if PostgreSQL
        let log = try open(name)
        defer { log.close() }
        do {
            return try LogReader().read(try log.jsonLines())
        } catch let error as EventLogError {
            throw CommandFailure(error.description)
        } catch let error as LogReader.Failure {
            throw CommandFailure("\(name): record \(error.line): \(error.reason)")
        }
        #else
        throw CommandFailure(notBuilt)
        #endif
    }

    /// Where the tool keeps the checkpoint of the database log shown as `name`: a local
    /// file in the user's cache directory (`$XDG_CACHE_HOME/timeline`, else
    /// `~/.cache/timeline`), named by a stable hash of the log's URL without its password,
    /// so one per database and log. `nil` when there is no cache directory to be had: the
    /// store then reads the log whole.
    static func checkpointPath(for name: String, environment: [String: String]) -> String? {
        let base: String
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            base = cache
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.cache"
        } else {
            return nil
        }
        let directory = base + "/timeline"
        for path in [base, directory] where mkdir(path, 0o700) != 0 && errno != EEXIST { return nil }
        let key = String(StableHash.of(name), radix: 16)
        return directory + "/" + String(repeating: "0", count: 16 - key.count) + key + ".checkpoint"
    }

    /// Why a build without the trait refuses a URL, and how to build one that takes it.
    static let notBuilt = "a PostgreSQL log needs a timeline built with PostgreSQL support: "
        + "build with `swift build --traits PostgreSQL` (needs libpq: apt-get install libpq-dev)"

    /// Why `repair` refuses a URL.
    static func repairDoesNotApply(_ name: String) -> String {
        "\(name): repair does not apply to a PostgreSQL log: the database keeps every record whole "
            + "(a batch is one transaction), so there are no torn or damaged lines to move aside"
    }
}
