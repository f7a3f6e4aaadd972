import Foundation
import Testing
import TimelineCore
@testable import TimelineKit

/// A log named as a person names it: a path or a postgresql:// URL, opened, given a
/// checkpoint, and used as a replica's shared log, the same way by every front end.
@Suite("LogLocation")
struct LogLocationTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-location-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    @Test func databaseURLsAreToldFromPathsByTheirScheme() {
        for url in ["postgresql://me@host/db?log=life", "postgres://host/db", "POSTGRESQL://h/d", "Postgres://h/d"] {
            #expect(LogLocation.isDatabaseURL(url) && LogLocation(url).isDatabase, "\(url)")
        }
        for path in ["life.jsonl", "/tmp/postgresql", "postgresql:/x", "./postgres://x", ""] {
            #expect(!LogLocation.isDatabaseURL(path) && !LogLocation(path).isDatabase, "\(path)")
            #expect(LogLocation(path).description == path)
        }
    }

    @Test func aDatabaseLogIsNeverShownWithItsPassword() {
        let location = LogLocation("postgresql://me:S3cr3t@host:5432/db?log=life")
        #expect(!location.description.contains("S3cr3t"))
        #expect(location.description.hasPrefix("postgresql://"))
    }

    @Test func aFileLogsCheckpointIsBesideIt() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/life.jsonl"
        #expect(try LogLocation(path).checkpointPath(environment: [:]) == path + ".checkpoint")
    }

    /// A database log's checkpoint goes in the user's cache directory, made when missing,
    /// named without the password; with no cache directory to be had, the reason.
    @Test func aDatabaseLogsCheckpointIsInTheCacheDirectory() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let location = LogLocation("postgresql://me:S3cr3t@host/db?log=life")
        let cache = directory + "/cache"
        let path = try location.checkpointPath(environment: ["XDG_CACHE_HOME": cache, "HOME": "/nonexistent"])
        #expect(path.hasPrefix(cache + "/timeline/") && path.hasSuffix(".checkpoint") && !path.contains("S3cr3t"))
        #expect(FileManager.default.fileExists(atPath: cache + "/timeline"))
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: false)
        let fromHome = try location.checkpointPath(environment: ["HOME": directory + "/home"])
        #expect(fromHome.hasPrefix(directory + "/home/.cache/timeline/"))
        #expect(throws: LogLocationError.noCacheDirectory) {
            try location.checkpointPath(environment: ["XDG_CACHE_HOME": "relative", "HOME": ""])
        }
        let file = directory + "/a-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        do {
            _ = try location.checkpointPath(environment: ["XDG_CACHE_HOME": file])
            Issue.record("a cache directory under a file was made")
        } catch {
            #expect(error == .cacheDirectoryUnusable(path: file + "/timeline", reason: String(cString: strerror(ENOTDIR))))
        }
    }

    #if PostgreSQL
    @Test func oneDatabaseLogHasOneCheckpointHoweverItsURLIsSpelt() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["XDG_CACHE_HOME": directory]
        let plain = try LogLocation("postgresql://me@host/db?log=life").checkpointPath(environment: environment)
        #expect(try LogLocation("POSTGRES://me:pw@host/db?log=life").checkpointPath(environment: environment) == plain)
        #expect(try LogLocation("postgresql://me@host/db?log=work").checkpointPath(environment: environment) != plain)
    }
    #else
    @Test func aBuildWithoutPostgreSQLSaysHowToBuildOne() throws {
        #expect(throws: LogLocationError.notBuilt) { try LogLocation("postgresql://me:pw@host/db").open(creating: false) }
        #expect(LogLocationError.notBuilt.description.contains("--traits PostgreSQL"))
        #expect(LogLocation("postgres://me:pw@host/db").description == "postgres://")
    }
    #endif

    @Test func aFileLogOpensAndIsMadeWhenMissing() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = try LogLocation(directory + "/new.jsonl").open(creating: true)
        #expect(log.position == 0)
        log.close()
        #expect(FileManager.default.fileExists(atPath: directory + "/new.jsonl"))
    }

    /// A store opened by a log's name: made only when creating; its checkpoint beside a
    /// file log, written on close and read by the next opening.
    @Test func aStoreOpensByItsLogsNameWithItsCheckpoint() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let location = LogLocation(directory + "/life.jsonl")
        #expect(throws: LogLocationError.missing(location.description)) {
            _ = try TimelineStore.open(location, creating: false, environment: [:])
        }
        #expect(!FileManager.default.fileExists(atPath: location.given))
        let store = try TimelineStore.open(location, creating: true, environment: [:])
        try await store.send(.createTimeline("life", name: "Life"))
        try await store.close()
        #expect(FileManager.default.fileExists(atPath: try location.checkpointPath(environment: [:])))
        let again = try TimelineStore.open(location, creating: false, environment: [:])
        #expect(again.openingReport.checkpointPosition == 1)
        #expect(await again.position == 1)
        try await again.close()
    }

    /// A shared log is never created by syncing, and a replica's mirror is not one.
    @Test func aReplicasSharedLogMustBeThereAndBeAShared() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let shared = directory + "/shared.jsonl"
        #expect(throws: ReplicaError.noSharedLog(shared: shared)) {
            try TimelineReplica.openSharedLog(LogLocation(shared))
        }
        #expect(!FileManager.default.fileExists(atPath: shared))
        let store = try TimelineStore(path: shared)
        try await store.send(.createTimeline("life", name: "Life"))
        try await store.close()
        let replica = try await TimelineReplica.clone(try FileEventLog(path: shared), shared: shared,
                                                      to: directory + "/phone.jsonl")
        #expect(throws: ReplicaError.sharedLogDamaged(shared: replica.path, reason: "it is a replica's mirror, not a shared log "
            + "(was the shared log replaced by a replica?)")) {
            try TimelineReplica.openSharedLog(LogLocation(replica.path))
        }
        let log = try replica.openSharedLog()
        #expect(log.position == 1)
        log.close()
        // A sync and the status connect by themselves.
        _ = try await replica.send([.renameTimeline("life", name: "Mine")])
        let report = try await replica.sync()
        #expect(report.accepted == 1 && report.position == 2)
        let status = await replica.status()
        #expect(status.head == 2 && status.position == 2 && status.pending == 0 && status.sharedProblem == nil)
        let device = await replica.device
        #expect(status.shared == shared && !status.isFolder && status.device == device)
        try FileManager.default.removeItem(atPath: shared)
        let away = await replica.status()
        #expect(away.head == nil && away.sharedProblem == ReplicaError.noSharedLog(shared: shared))
    }
}
