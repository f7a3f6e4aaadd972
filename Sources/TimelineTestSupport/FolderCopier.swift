import Foundation
import Synchronization

/// A file-sync service between real directories, for tests of folder mode: the
/// sequencer's copy of a shared folder (`hub`) and each device's copy. Devices' segments
/// travel up, the published log and the layout file travel down, a device's deletions of
/// its own segments travel up; with the faults people meet: files late and in any order
/// (a step copies one file, chosen at random), a file written in place and seen half
/// written before it is completed, conflicted copies of files (Dropbox's and Syncthing's
/// names). Its state lives in the directories, so a new copier carries on where another
/// stopped (a service restarted).
public final class FolderCopier: Sendable {
    private let hub: String
    private let copies: [String]
    private let random: Mutex<SplitMix64>

    /// A copier between `hub` and `copies`, its choices seeded by `seed`.
    public init(hub: String, copies: [String], seed: UInt64) {
        self.hub = hub
        self.copies = copies
        random = Mutex(SplitMix64(seed: seed))
    }

    /// Files under `root` (relative paths), with the layout's directories only.
    private func files(under root: String, in directories: [String]) -> [String] {
        var found: [String] = []
        let manager = FileManager.default
        for directory in directories {
            guard let enumerator = manager.enumerator(atPath: root + "/" + directory) else { continue }
            while let name = enumerator.nextObject() as? String {
                var isDirectory: ObjCBool = false
                if manager.fileExists(atPath: root + "/" + directory + "/" + name, isDirectory: &isDirectory),
                   !isDirectory.boolValue {
                    found.append(directory + "/" + name)
                }
            }
        }
        if directories.contains("."), manager.fileExists(atPath: root + "/timeline-folder.json") {
            found.append("timeline-folder.json")
        }
        return found.filter { !$0.hasPrefix("./") }.sorted()
    }

    /// What differs between a source and a target: (source root, target root, path).
    private func differences() -> [(from: String, to: String, path: String)] {
        var moves: [(from: String, to: String, path: String)] = []
        for copy in copies {
            for path in files(under: copy, in: ["devices"]) where !isOdd(path) && differs(copy, hub, path) {
                moves.append((copy, hub, path))
            }
            for path in files(under: hub, in: ["log", "."]) where !isOdd(path) && differs(hub, copy, path) {
                moves.append((hub, copy, path))
            }
        }
        return moves
    }

    /// The files this service made itself (conflicted copies), never copied on.
    private func isOdd(_ path: String) -> Bool { path.contains("conflicted copy") || path.contains(".sync-conflict-") }

    private func differs(_ from: String, _ to: String, _ path: String) -> Bool {
        FileManager.default.contents(atPath: from + "/" + path) != FileManager.default.contents(atPath: to + "/" + path)
    }

    /// Deletions to carry up: a device's segment in the hub that its device removed.
    private func deletions() -> [String] {
        var gone: [String] = []
        for path in files(under: hub, in: ["devices"]) where !isOdd(path) {
            let device = path.split(separator: "/")[1]
            // The device's copy knows its directory: a segment missing there was removed by its writer.
            for copy in copies where FileManager.default.fileExists(atPath: copy + "/devices/" + device) {
                if !FileManager.default.fileExists(atPath: copy + "/" + path) { gone.append(path) }
            }
        }
        return gone
    }

    private func put(_ bytes: Data, at path: String) {
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Written in place, as many services do: a reader may see it half written.
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: url) else { return }
        try? handle.write(contentsOf: bytes)
        try? handle.close()
    }

    /// One operation: a file copied (whole, or half now and whole at a later step), a
    /// deletion carried up, or a conflicted copy left beside a file.
    public func step() {
        let moves = differences()
        let gone = deletions()
        random.withLock { rng in
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                guard let move = moves.randomElement(using: &rng),
                      let bytes = FileManager.default.contents(atPath: move.from + "/" + move.path) else { return }
                let half = Int.random(in: 0..<3, using: &rng) == 0
                put(half ? bytes.prefix(bytes.count / 2) : bytes, at: move.to + "/" + move.path)
            case 6, 7:
                guard let path = gone.randomElement(using: &rng) else { return }
                try? FileManager.default.removeItem(atPath: hub + "/" + path)
            default:
                guard let move = moves.randomElement(using: &rng),
                      let bytes = FileManager.default.contents(atPath: move.from + "/" + move.path) else { return }
                let odd = Bool.random(using: &rng) ? move.path + " (conflicted copy 2026-12-03)"
                    : String(move.path.dropLast(4)) + ".sync-conflict-20261203-101112-ABCDEFG.seg"
                put(Bool.random(using: &rng) ? bytes : bytes.prefix(bytes.count / 3), at: move.to + "/" + odd)
            }
        }
    }

    /// Copies everything whole, both ways, and carries every deletion up.
    public func settle() {
        for _ in 0..<2 {
            for path in deletions() { try? FileManager.default.removeItem(atPath: hub + "/" + path) }
            for move in differences() {
                if let bytes = FileManager.default.contents(atPath: move.from + "/" + move.path) {
                    put(bytes, at: move.to + "/" + move.path)
                }
            }
        }
    }
}
