import Foundation
import Testing
import TimelineTestSupport
#if PostgreSQL
@testable import TimelinePostgres
#endif

/// What the tool printed and how it ended.
typealias ToolResult = SpawnedProcess.Completion

/// Runs the built `timeline` with `arguments` (and `environment` added to an environment
/// without `TIMELINE_LOG`), standard input empty, in an empty working directory.
func runTool(_ arguments: [String], environment: [String: String] = [:]) throws -> ToolResult {
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let tool = try #require(builtExecutable(named: "timeline", packageRoot: packageRoot))
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-pg-tool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    var variables = ProcessInfo.processInfo.environment
    variables["TIMELINE_LOG"] = nil
    for (key, value) in environment { variables[key] = value }
    return try SpawnedProcess.run(tool, arguments, environment: variables, currentDirectory: scratch)
}

#if PostgreSQL
/// The tool on a PostgreSQL log: `--log URL` and `$TIMELINE_LOG`, export and import
/// between a file and the database, repair refused, no password in any message.
@Suite(.enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresToolTests {
    @Test func theToolWritesReadsExportsAndImportsADatabaseLog() throws {
        let url = TestServer.url(log: TestServer.newLogName("tool"))
        // The test server trusts loopback connections: the password is sent nowhere, and
        // must be shown nowhere.
        let password = "sekrit-\(UUID().uuidString.prefix(6))"
        let withPassword = url.replacing("://postgres@", with: "://postgres:\(password)@")
        #expect(withPassword.contains(password))
        var results: [ToolResult] = []
        func tool(_ arguments: [String], environment: [String: String] = [:]) throws -> ToolResult {
            let result = try runTool(arguments, environment: environment)
            results.append(result)
            return result
        }
        let created = try tool(["create-timeline", "--log", withPassword, "--timeline", "life", "--name", "My life"])
        #expect(created.status == 0, "\(created.errors)")
        let added = try tool(["add-event", "--event", "born", "--timeline", "life", "--title", "Born",
                              "--date", "1990-04-12"], environment: ["TIMELINE_LOG": withPassword])
        #expect(added.status == 0, "\(added.errors)")
        #expect(added.output.contains("record 2"))
        let verified = try tool(["verify", "--log", withPassword])
        #expect(verified.output.hasSuffix("ok: 2 records, 2 facts, 1 timeline, 1 event\n"), "\(verified.errors)")
        let rows = try tool(["rows", "--log", url, "--now", "2026-01-01"])
        #expect(rows.status == 0 && rows.output.contains("Born"))

        // export writes a JSON Lines log that replays to the same rows, and imports into another database log.
        let exported = try tool(["export", "--log", withPassword])
        #expect(exported.status == 0)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("exported.jsonl").path
        try Data(exported.output.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try tool(["replay", file, "--now", "2026-01-01"]).output == rows.output)
        let copy = TestServer.url(log: TestServer.newLogName("tool-copy"))
        let imported = try tool(["import", file, "--log", copy])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(try tool(["rows", "--log", copy, "--now", "2026-01-01"]).output == rows.output)

        let repair = try tool(["repair", "--log", withPassword])
        #expect(repair.status == 1)
        #expect(repair.errors.contains("repair does not apply to a PostgreSQL log"))
        let badName = try tool(["rows", "--log", TestServer.url(log: "no/slashes")])
        #expect(badName.status == 1 && badName.errors.contains("invalid log name"))
        for result in results {
            #expect(!result.output.contains(password) && !result.errors.contains(password))
        }
    }

    /// A store command keeps the database log's checkpoint in the cache directory, named
    /// without the password, and then reads only the records after it: a record before
    /// it that is damaged in the database does not stop `add-event`, and `verify`, which
    /// reads everything, finds it.
    @Test func aStoreCommandKeepsTheCheckpointInTheCacheAndReadsOnlyTheTail() throws {
        let name = TestServer.newLogName("cached")
        let url = TestServer.url(log: name)
        let password = "sekrit-\(UUID().uuidString.prefix(6))"
        let withPassword = url.replacing("://postgres@", with: "://postgres:\(password)@")
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let environment = ["XDG_CACHE_HOME": cache.path, "TIMELINE_LOG": withPassword]
        // Without a cache directory to be had, nothing is kept.
        let uncached = ["XDG_CACHE_HOME": "", "HOME": "", "TIMELINE_LOG": withPassword]
        #expect(try runTool(["create-timeline", "--timeline", "life", "--name", "Life"], environment: uncached).status == 0)
        #expect(!FileManager.default.fileExists(atPath: cache.path))
        // The first command with a cache writes the checkpoint, at position 2.
        let added = try runTool(["add-event", "--event", "born", "--timeline", "life", "--title", "Born",
                                 "--date", "1990-04-12"], environment: environment)
        #expect(added.status == 0, "\(added.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.path + "/timeline")
        #expect(files.count == 1 && files[0].hasSuffix(".checkpoint") && !files[0].contains(password), "\(files)")
        // Damage record 1, which lies before the checkpoint.
        let connection = try PostgresConnection(PostgresLocation(url: url))
        _ = try connection.run("""
            UPDATE timeline_records SET line = 'not a record' WHERE position = 1
              AND log = (SELECT id FROM timeline_logs WHERE name = '\(name)')
            """)
        let later = try runTool(["add-event", "--event", "school", "--timeline", "life", "--title", "School",
                                 "--date", "1996-09"], environment: environment)
        #expect(later.status == 0, "\(later.errors)")
        let verified = try runTool(["verify"], environment: environment)
        #expect(verified.status == 1 && verified.errors.contains("record 1"), "\(verified.errors)")
        // Without the cache, the store reads the whole log and refuses it.
        let whole = try runTool(["add-event", "--event", "work", "--timeline", "life", "--title", "Work",
                                 "--date", "2012"], environment: uncached)
        #expect(whole.status == 1 && whole.errors.contains("record 1: not valid JSON"), "\(whole.errors)")
        #expect(!whole.errors.contains("timeline repair"), "repair does not apply to a database log")
    }

    /// Only create-timeline and import create a log: every other command says there is
    /// none and how to start one, and leaves no row in `timeline_logs`.
    @Test func aCommandThatReadsCreatesNoLog() throws {
        let name = TestServer.newLogName("nosuch")
        let url = TestServer.url(log: name)
        for arguments in [["rows"], ["rows", "--upto", "1"], ["timelines"], ["verify"], ["export"], ["rebuild"],
                          ["render", "--output", "/dev/null"],
                          ["add-event", "--timeline", "t", "--title", "T", "--date", "2001"]] {
            let result = try runTool(arguments + ["--log", url])
            #expect(result.status == 1, "\(arguments): \(result.output) \(result.errors)")
            #expect(result.errors.contains("there is no log at"), "\(arguments): \(result.errors)")
            #expect(result.errors.contains("start one with: timeline create-timeline"), "\(arguments): \(result.errors)")
        }
        // On a fresh database no test may have created the tables yet: a read creates
        // neither them nor the log's row.
        let connection = try PostgresConnection(PostgresLocation(url: url))
        let tables = try connection.run("SELECT to_regclass('timeline_logs') IS NOT NULL")
        if tables.last?.text(row: 0, column: 0) == "t" {
            let found = try connection.run("SELECT count(*) FROM timeline_logs WHERE name = '\(name)'")
            #expect(found.last?.text(row: 0, column: 0) == "0", "a read created the log")
        }
        let created = try runTool(["create-timeline", "--log", url, "--name", "Life"])
        #expect(created.status == 0, "\(created.errors)")
        #expect(try runTool(["rows", "--log", url]).status == 0)
    }

    /// A directory of the test's own, for a watch's output and cache.
    static func scratchDirectory() throws -> URL {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-pg-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        return scratch
    }

    /// `timeline watch --log URL --json` running, its output and errors in `scratch`.
    static func watch(_ url: String, in scratch: URL) throws -> SpawnedProcess {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let tool = try #require(builtExecutable(named: "timeline", packageRoot: packageRoot))
        var environment = ProcessInfo.processInfo.environment
        environment["TIMELINE_LOG"] = nil
        environment["XDG_CACHE_HOME"] = scratch.path
        return try SpawnedProcess(tool, ["watch", "--log", url, "--json", "--now", "2026-01-01"],
                                  environment: environment, outputPath: scratch.path + "/watch.out",
                                  errorPath: scratch.path + "/watch.err")
    }

    /// Whether `condition` comes to hold within 30 s.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// watch follows a PostgreSQL log: each commit arrives through NOTIFY, and after the
    /// server drops its connections, watch connects again and catches up.
    @Test func watchFollowsADatabaseLogThroughALostConnection() async throws {
        let name = TestServer.newLogName("watch")
        let url = TestServer.url(log: name)
        #expect(try runTool(["create-timeline", "--log", url, "--timeline", "life", "--name", "Life"]).status == 0)
        let scratch = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let watcher = try Self.watch(url, in: scratch)
        defer { watcher.killNow() }
        #expect(await Self.eventually { !watcher.outputLines.isEmpty }, "\(watcher.errors)")
        #expect(watcher.outputLines.first?.hasPrefix(#"{"type":"reset","from":1,"to":1"#) == true, "\(watcher.output)")
        #expect(try runTool(["add-event", "--log", url, "--timeline", "life", "--title", "One", "--date", "2001"]).status == 0)
        #expect(await Self.eventually { watcher.output.contains(#""title":"One""#) }, "\(watcher.output) \(watcher.errors)")
        // The server drops the watcher's connections: those whose last statement names its
        // log (its follower's LISTEN), and only those: other tests run beside this one.
        let admin = try PostgresConnection(PostgresLocation(url: url))
        let dropped = try admin.run("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            + "WHERE pid <> pg_backend_pid() AND datname = current_database() AND query LIKE '%\(name)%'")
        #expect(dropped.last?.text(row: 0, column: 0) != "0", "no connection of the watcher was dropped")
        #expect(try runTool(["add-event", "--log", url, "--timeline", "life", "--title", "Two", "--date", "2002"]).status == 0)
        #expect(await Self.eventually { watcher.output.contains(#""title":"Two""#) }, "\(watcher.output) \(watcher.errors)")
        #expect(watcher.isRunning)
    }

    /// While the server cannot be reached, watch says the view waits and why (it said
    /// nothing: the follower reconnected in silence); once it can, that the view follows
    /// the log again, and the rows committed meanwhile arrive. The outage is a database of
    /// the test's own refusing connections, so that other tests are not cut off.
    @Test func watchSaysWhileTheServerCannotBeReachedAndWhenItCanAgain() async throws {
        let database = "outage_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try adminConnection()
        _ = try admin.run("CREATE DATABASE \(database)")
        defer { _ = try? admin.run("DROP DATABASE IF EXISTS \(database) WITH (FORCE)") }
        var components = try #require(URLComponents(string: TestServer.url(log: "outage")))
        components.path = "/" + database
        let url = try #require(components.string)
        #expect(try runTool(["create-timeline", "--log", url, "--timeline", "life", "--name", "Life"]).status == 0)
        let scratch = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let watcher = try Self.watch(url, in: scratch)
        defer { watcher.killNow() }
        #expect(await Self.eventually { !watcher.outputLines.isEmpty }, "\(watcher.errors)")
        _ = try admin.run("ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
        _ = try admin.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
        #expect(await Self.eventually { watcher.errors.contains("the view waits until the log can be read on") },
                "\(watcher.errors)")
        #expect(!watcher.errors.contains("can be read again"), "\(watcher.errors)")
        _ = try admin.run("ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
        #expect(try runTool(["add-event", "--log", url, "--timeline", "life", "--title", "Back", "--date", "2003"]).status == 0)
        #expect(await Self.eventually { watcher.output.contains(#""title":"Back""#) }, "\(watcher.output) \(watcher.errors)")
        #expect(await Self.eventually { watcher.errors.contains("the log can be read again: the view follows it") },
                "\(watcher.errors)")
        #expect(watcher.isRunning)
    }

    /// libpq's and the server's messages read as messages: no `\t`, no SQL of the tool's;
    /// a cache directory that cannot be made is said, not silently done without.
    @Test func databaseMessagesReadAsMessages() throws {
        let refused = try runTool(["rows", "--log", "postgresql://u@127.0.0.1:1/db?log=x"])
        #expect(refused.status == 1 && !refused.errors.contains("\\t"), "\(refused.errors)")
        // libpq's hint on a line of its own is joined to its message: one line, no line of
        // the tool's own that begins with a blank ("timeline:  Is the server running …").
        #expect(refused.errors.split(separator: "\n").count == 1 && !refused.errors.contains("timeline:  "),
                "\(refused.errors)")
        #expect(PostgresConnection.readable("connection failed: refused\n\tIs the server running?\n") ==
                "connection failed: refused Is the server running?")
        let name = TestServer.newLogName("path")
        let url = TestServer.url(log: name)
        let base = try #require(TestServer.url)
        let noSchema = base + (base.contains("?") ? "&" : "?") + "options=-c%20search_path%3Dnosuch&log=" + name
        let odd = try runTool(["create-timeline", "--log", noSchema, "--name", "Life"])
        #expect(odd.status == 1, "\(odd.errors)")
        #expect(!odd.errors.contains("LINE 1") && !odd.errors.contains("CREATE TABLE"), "\(odd.errors)")
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-cache-\(UUID().uuidString)")
        try Data("a file".utf8).write(to: cache)
        defer { try? FileManager.default.removeItem(at: cache) }
        let created = try runTool(["create-timeline", "--log", url, "--name", "Life"],
                                  environment: ["XDG_CACHE_HOME": cache.path])
        #expect(created.status == 0, "\(created.errors)")
        #expect(created.errors.contains("no checkpoint is kept"), "\(created.errors)")
    }

    /// The URL's password is in no message, whatever the command and however the URL
    /// is spelt: an invalid log name, a doubled `log=`, an upper-case scheme.
    @Test func noMessageNamesThePasswordOfABadURL() throws {
        let base = try #require(TestServer.url).replacing("://postgres@", with: "://postgres:S3cr3t@")
        let separator = base.contains("?") ? "&" : "?"
        for url in [base + separator + "log=bad!name", base + separator + "log=a&log=b",
                    "POSTGRESQL" + base.drop { $0 != ":" } + separator + "log=bad!name"] {
            for arguments in [["rows"], ["watch"], ["repair"], ["verify"], ["export"], ["rebuild"], ["timelines"],
                              ["create-timeline", "--name", "Life"], ["import", "/dev/null"]] {
                let result = try runTool(arguments + ["--log", url])
                #expect(!(result.output + result.errors).contains("S3cr3t"), "\(arguments): \(result.errors)")
            }
        }
    }
}
#else
/// Without the trait, a URL gets an error that says how to build with it.
@Suite struct PostgresToolWithoutTheTraitTests {
    @Test func aURLAsksForABuildWithPostgreSQL() throws {
        for arguments in [["rows", "--log", "postgresql://u:pw-secret@localhost/db?log=x"],
                          ["create-timeline", "--log", "postgres://u:pw-secret@localhost/db", "--name", "Life"]] {
            let result = try runTool(arguments)
            #expect(result.status == 1)
            #expect(result.errors.contains("swift build --traits PostgreSQL"))
            #expect(!result.errors.contains("pw-secret"))
        }
    }
}
#endif
