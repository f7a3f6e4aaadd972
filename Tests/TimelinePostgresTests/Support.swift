#if PostgreSQL
import EventLogContract
import Foundation
import Testing
import TimelineCore
import TimelinePostgres

/// The server the tests use: `$TIMELINE_TEST_POSTGRES_URL` (`.ci/postgres.sh start` starts
/// one and prints its URL). Without it, the tests are skipped and say why.
enum TestServer {
    static let url: String? = {
        guard let url = ProcessInfo.processInfo.environment["TIMELINE_TEST_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }()

    static let isAvailable = url != nil

    static let skipReason: Comment =
        "TIMELINE_TEST_POSTGRES_URL is not set: start a server with `.ci/postgres.sh start` and export the URL it prints"

    /// A log name of its own for one test (the database outlives a run): `prefix` and a random part.
    static func newLogName(_ prefix: String) -> String {
        String((prefix + "-" + UUID().uuidString.prefix(8)).prefix(63))
    }

    /// The URL of the log `name` on the test server.
    static func url(log name: String) -> String {
        let base = url ?? "postgresql://localhost/postgres"
        return base + (base.contains("?") ? "&" : "?") + "log=" + name
    }
}

/// A PostgreSQL log under the contract's tests; reopening connects anew.
final class PostgresFixture: EventLogFixture {
    let url: String
    private(set) var log: any EventLog

    init(_ prefix: String) throws {
        url = TestServer.url(log: TestServer.newLogName(prefix))
        log = try PostgresEventLog(url: url)
    }

    func reopen() throws {
        (log as? PostgresEventLog)?.close()
        log = try PostgresEventLog(url: url)
    }

    deinit { (log as? PostgresEventLog)?.close() }
}
#endif
