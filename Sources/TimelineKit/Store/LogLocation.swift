import SystemShim
import TimelineCore
#if PostgreSQL
import TimelinePostgres
#endif

/// Where an event log is, as a person names it: a file's path, or a log in a PostgreSQL
/// database named by URL (`postgresql://USER@HOST:PORT/DATABASE?log=NAME`, or
/// `postgres://`).
///
/// The one place that tells the two apart, opens either, and says where a store keeps
/// the checkpoint of each, so that a front end taking a log's name from its user opens it
/// as the tool does.
public struct LogLocation: Hashable, Sendable, CustomStringConvertible {
    /// The location as given: a path, or a URL with its password, if it has one.
    public let given: String

    /// A location named by `text`: a database log when ``isDatabaseURL(_:)``, else a file.
    public init(_ text: String) { given = text }

    /// Whether `text` names a database log rather than a file: it starts with
    /// `postgresql://` or `postgres://`, in any case (URL schemes are case-insensitive).
    public static func isDatabaseURL(_ text: String) -> Bool {
        let scheme = text.prefix(13).lowercased()
        return scheme.hasPrefix("postgresql://") || scheme.hasPrefix("postgres://")
    }

    /// Whether this is a log in a database.
    public var isDatabase: Bool { Self.isDatabaseURL(given) }

    /// The name to show: the path, or the URL without its password (in a build without
    /// PostgreSQL support, only the scheme: nothing of the URL is shown).
    public var description: String {
        guard isDatabase else { return given }
        #if PostgreSQL
        if let location = try? PostgresLocation(url: given) { return location.displayName }
        #endif
        return given.prefix(11).lowercased() == "postgres://" ? "postgres://" : "postgresql://"
    }

    /// Opens the log. A file log is made when it is not there; a database log only when
    /// `creating` (otherwise ``LogLocationError/missing(_:)``).
    /// - Throws: ``LogLocationError``; ``LogLocationError/notBuilt`` for a database log in a
    ///   build without the `PostgreSQL` trait.
    public func open(creating: Bool) throws(LogLocationError) -> any EventLog {
        guard isDatabase else {
            do { return try FileEventLog(path: given) } catch { throw .log(error) }
        }
        #if PostgreSQL
        do {
            return try PostgresEventLog(url: given, creating: creating)
        } catch .database(_, PostgresEventLog.noSuchLog) where !creating {
            throw .missing(description)
        } catch {
            throw .log(error)
        }
        #else
        throw .notBuilt
        #endif
    }

    /// Where a store keeps the checkpoint of this log: beside a file log (its path with
    /// `.checkpoint` added);
    /// for a database log, a file in the user's cache directory (`$XDG_CACHE_HOME/timeline`,
    /// else `~/.cache/timeline`, made when missing), named by a stable hash of the URL
    /// without its password: one per database and log.
    /// - Throws: ``LogLocationError/noCacheDirectory`` or
    ///   ``LogLocationError/cacheDirectoryUnusable(path:reason:)`` when there is no cache
    ///   directory to be had (then a store reads the log whole).
    public func checkpointPath(environment: [String: String]) throws(LogLocationError) -> String {
        guard isDatabase else { return TimelineStore.checkpointPath(forLog: given) }
        let base: String
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            base = cache
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.cache"
        } else {
            throw .noCacheDirectory
        }
        let directory = base + "/timeline"
        for path in [base, directory] where mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw .cacheDirectoryUnusable(path: path, reason: String(cString: strerror(errno)))
        }
        let key = String(StableHash.of(description), radix: 16)
        return directory + "/" + String(repeating: "0", count: 16 - key.count) + key + ".checkpoint"
    }
}

extension TimelineStore {
    /// Opens a store on the log at `location`, with its checkpoint where
    /// ``LogLocation/checkpointPath(environment:)`` says (`environment` gives the cache
    /// directory): a file log's beside it; a database log's in the user's cache directory,
    /// or none when there is none to be had (`noCheckpoint` is told why, and the store reads
    /// the log whole). A log that is not there is made only when `creating`
    /// (otherwise ``LogLocationError/missing(_:)``).
    /// - Throws: ``LogLocationError``; a store that does not open is ``LogLocationError/store(_:)``.
    public static func open(_ location: LogLocation, creating: Bool, clock: any TimelineClock = SystemClock(),
                            views: [ViewDefinition] = [ViewDefinition()], environment: [String: String],
                            noCheckpoint: (LogLocationError) -> Void = { _ in }) throws(LogLocationError)
        -> TimelineStore {
        if !location.isDatabase {
            if !creating, access(location.given, F_OK) != 0, errno == ENOENT { throw .missing(location.description) }
            do { return try TimelineStore(path: location.given, clock: clock, views: views) } catch { throw .store(error) }
        }
        let log = try location.open(creating: creating)
        var checkpoint: String?
        do { checkpoint = try location.checkpointPath(environment: environment) } catch { noCheckpoint(error) }
        do {
            if let checkpoint { return try TimelineStore(log: log, checkpointPath: checkpoint, clock: clock, views: views) }
            return try TimelineStore(log: log, clock: clock, views: views)
        } catch {
            log.close()
            throw .store(error)
        }
    }
}

/// Why a ``LogLocation`` could not be opened or given a checkpoint.
public enum LogLocationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database holds no log of this name, and it was not to be created.
    case missing(String)
    /// A database log, in a build without PostgreSQL support.
    case notBuilt
    /// The log could not be opened.
    case log(EventLogError)
    /// The log opened, but a store on it did not (``TimelineStore/open(_:creating:clock:views:environment:noCheckpoint:)``).
    case store(StoreError)
    /// A database log's checkpoint has nowhere to go: neither `$XDG_CACHE_HOME` nor `$HOME`
    /// is an absolute path.
    case noCacheDirectory
    /// A database log's checkpoint has nowhere to go: its directory cannot be made.
    case cacheDirectoryUnusable(path: String, reason: String)

    /// The message: what and why.
    public var description: String {
        switch self {
        case .missing(let name): "there is no log at \(name)"
        case .notBuilt:
            "a PostgreSQL log needs a build with PostgreSQL support: build with `swift build --traits PostgreSQL` "
                + "(needs libpq: apt-get install libpq-dev)"
        case .log(let error): error.description
        case .store(let error): error.description
        case .noCacheDirectory: "there is no cache directory to keep the checkpoint in: neither $XDG_CACHE_HOME nor $HOME is an absolute path"
        case .cacheDirectoryUnusable(let path, let reason): "cannot make the cache directory \(path): \(reason)"
        }
    }
}
