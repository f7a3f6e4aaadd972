import Foundation
import Testing
import TimelineTestSupport

/// Folder mode through a real file-sync service: two Syncthing instances on loopback (no
/// discovery, no relays), one folder shared between them. The sequencer works on one
/// instance's copy, a phone's replica on the other's; a conflicting edit travels both ways
/// as files Syncthing copies. Skipped when `syncthing` is not installed (`.ci/run` installs it).
@Suite(.enabled(if: SyncthingPair.isInstalled, "syncthing is not installed"))
struct SyncthingTests {
    @Test func aConflictTravelsThroughSyncthingAndBecomesANotice() async throws {
        guard let toolURL else { throw ToolNotFound() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pair = try SyncthingPair(in: directory.url.path)
        defer { pair.stop() }
        let shared = directory.path("shared.jsonl"), phone = directory.path("phone.jsonl")
        let laptop = directory.path("laptop.jsonl")
        func run(_ arguments: [String]) throws -> SpawnedProcess.Completion {
            try SpawnedProcess.run(toolURL, arguments, timeout: .seconds(60))
        }
        #expect(try run(["create-timeline", "--log", shared, "--timeline", "life", "--name", "Life"]).status == 0)
        #expect(try run(["add-event", "--log", shared, "--timeline", "life", "--event", "born", "--title", "Born",
                         "--date", "1990"]).status == 0)
        #expect(try run(["sequence", "--log", shared, "--folder", pair.folders[1]]).status == 0)
        // The laptop sits beside the sequencer, on its copy; the phone on the other copy.
        #expect(try run(["clone", pair.folders[1], "--log", laptop]).status == 0)
        try await waitFor("the published log on the phone's copy") {
            FileManager.default.fileExists(atPath: pair.folders[0] + "/log/000000000001-000000000002.seg")
        }
        #expect(try run(["clone", pair.folders[0], "--log", phone]).status == 0)
        // The laptop removes the event first; the phone, which has not heard, retitles it.
        #expect(try run(["remove-event", "--log", laptop, "--event", "born"]).status == 0)
        #expect(try run(["retitle-event", "--log", phone, "--event", "born", "--title", "Here", "--offline"]).status == 0)
        #expect(try run(["sync", "--log", phone]).status == 0)  // its segment into the phone's copy
        try await waitFor("the phone's segment on the sequencer's copy") {
            let devices = pair.folders[1] + "/devices"
            let names = (try? FileManager.default.subpathsOfDirectory(atPath: devices)) ?? []
            return names.filter { $0.hasSuffix(".seg") }.count == 2
        }
        let decided = try run(["sequence", "--log", shared, "--folder", pair.folders[1], "--json"])
        #expect(decided.output.contains(#""decided":2,"accepted":1,"rejected":1"#), "\(decided)")
        try await waitFor("the phone learning its outcome") {
            (try? run(["sync", "--log", phone, "--json"]).output.contains(#""pending":0"#)) ?? false
        }
        #expect(try run(["notices", "--log", phone, "--json"]).output.contains(#""rule":"unknownEvent""#))
        #expect(try run(["sync", "--log", laptop]).status == 0)
        for replica in [phone, laptop] {
            #expect(try Data(contentsOf: URL(fileURLWithPath: replica)) == Data(contentsOf: URL(fileURLWithPath: shared)))
        }
        // One writer per file: Syncthing never had to keep a conflicting version.
        for folder in pair.folders {
            let names = (try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []
            #expect(!names.contains { $0.contains(".sync-conflict-") }, "\(names)")
        }
    }

    /// Polls `condition` every 200 ms for up to 60 s (Syncthing has no notification to wait on here).
    func waitFor(_ what: String, _ condition: () throws -> Bool) async throws {
        for _ in 0..<300 {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("timed out waiting for \(what)")
    }
}

/// Two Syncthing instances on loopback sharing one folder: homes, keys and configuration
/// made in a scratch directory, listening on free ports, every discovery off.
struct SyncthingPair {
    static var isInstalled: Bool { executable != nil }
    static var executable: URL? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let url = URL(fileURLWithPath: String(directory) + "/syncthing")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    let folders: [String]
    private let processes: [SpawnedProcess]

    init(in directory: String) throws {
        let syncthing = try #require(Self.executable)
        let homes = [directory + "/st-a", directory + "/st-b"]
        folders = [directory + "/Shared-a", directory + "/Shared-b"]
        var ids: [String] = []
        for home in homes {
            #expect(try SpawnedProcess.run(syncthing, ["generate", "--home=" + home], timeout: .seconds(60)).status == 0)
            let id = try SpawnedProcess.run(syncthing, ["serve", "--home=" + home, "--device-id"], timeout: .seconds(60))
            ids.append(id.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let ports = [Self.freePort(), Self.freePort()]
        for k in 0..<2 {
            try FileManager.default.createDirectory(atPath: folders[k] + "/.stfolder", withIntermediateDirectories: true)
            let config = """
                <configuration version="36">
                  <folder id="timeline" label="timeline" path="\(folders[k])" type="sendreceive" rescanIntervalS="5" fsWatcherEnabled="true" fsWatcherDelayS="1">
                    <device id="\(ids[0])"></device>
                    <device id="\(ids[1])"></device>
                  </folder>
                  <device id="\(ids[k])" name="me"><address>dynamic</address></device>
                  <device id="\(ids[1 - k])" name="other"><address>tcp://127.0.0.1:\(ports[1 - k])</address></device>
                  <gui enabled="false"><address>127.0.0.1:0</address></gui>
                  <options>
                    <listenAddress>tcp://127.0.0.1:\(ports[k])</listenAddress>
                    <globalAnnounceEnabled>false</globalAnnounceEnabled>
                    <localAnnounceEnabled>false</localAnnounceEnabled>
                    <relaysEnabled>false</relaysEnabled>
                    <natEnabled>false</natEnabled>
                    <startBrowser>false</startBrowser>
                    <urAccepted>-1</urAccepted>
                    <crashReportingEnabled>false</crashReportingEnabled>
                    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                    <reconnectionIntervalS>1</reconnectionIntervalS>
                  </options>
                </configuration>
                """
            try config.write(toFile: homes[k] + "/config.xml", atomically: true, encoding: .utf8)
        }
        processes = try homes.map { home in
            try SpawnedProcess(syncthing, ["serve", "--home=" + home, "--no-browser", "--no-restart", "--no-upgrade"],
                               outputPath: home + ".out", errorPath: home + ".err")
        }
    }

    func stop() {
        for process in processes {
            process.send(SIGTERM)
            process.waitUntilExit(timeout: .seconds(20))
        }
    }

    /// A TCP port on loopback that nothing listens on now.
    static func freePort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
