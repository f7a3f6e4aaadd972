import Synchronization
import TimelineTestSupport
@testable import TimelineCore

/// Who wrote and removed each path of a shared folder, across every device's copy: the
/// folder-mode property that no file has two writers.
final class WriteLedger: Sendable {
    let writers = Mutex<[String: Set<String>]>([:])
    /// Paths written again with other contents (a sealed file must never change; a file
    /// half copied by the service and then written whole is not a change).
    let rewritten = Mutex<[String]>([])
    /// Every write, in order: who wrote which path.
    let writes = Mutex<[(writer: String, path: String)]>([])

    func note(_ path: String, by writer: String) { writers.withLock { _ = $0[path, default: []].insert(writer) } }

    /// The paths more than one writer wrote or removed.
    var shared: [String] { writers.withLock { $0.filter { $0.value.count > 1 }.keys.sorted() } }
}

/// One device's copy of a shared folder, in memory: what its process reads and writes,
/// while the file-sync model copies files in and out of it.
final class MemoryFolder: FolderFiles {
    let owner: String
    let ledger: WriteLedger
    let files = Mutex<[String: [UInt8]]>([:])

    init(owner: String, ledger: WriteLedger) {
        self.owner = owner
        self.ledger = ledger
    }

    func names(in directory: String) throws(FolderFailure) -> [String] {
        let prefix = directory + "/"
        let paths = files.withLock { Array($0.keys) }
        var names = Set<String>()
        for path in paths where path.hasPrefix(prefix) {
            names.insert(String(path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)[0]))
        }
        return names.sorted()
    }

    func read(_ path: String) throws(FolderFailure) -> [UInt8]? { files.withLock { $0[path] } }

    func write(_ bytes: [UInt8], to path: String) throws(FolderFailure) {
        ledger.note(path, by: owner)
        ledger.writes.withLock { $0.append((owner, path)) }
        let before = files.withLock { files in
            defer { files[path] = bytes }
            return files[path]
        }
        if let before, before != bytes, !bytes.starts(with: before) { ledger.rewritten.withLock { $0.append(path) } }
    }

    func size(of path: String) -> Int? { files.withLock { $0[path]?.count } }

    func remove(_ path: String) throws(FolderFailure) {
        let removed = files.withLock { $0.removeValue(forKey: path) != nil }
        if removed { ledger.note(path, by: owner) }
    }
}

/// A file-sync service (iCloud Drive, Dropbox, Syncthing) between the copies of a folder,
/// with the faults people meet: files late (copied only when a step picks them), in any
/// order, seen half-written, delivered twice, conflicted copies of files, a deleted file
/// coming back, a copy disconnected for long spells. A change made to a copy the service
/// has not yet uploaded while the server's file changed is a real conflict: it is counted
/// (normal operation must make none) and kept as a conflicted copy, as services do.
struct FileSyncModel {
    var copies: [MemoryFolder]
    /// Whether each copy is connected.
    var online: [Bool]
    /// The server's files.
    var server: [String: [UInt8]] = [:]
    /// Files deleted on the server, with their last contents (a service may bring them back).
    var deleted: [String: [UInt8]] = [:]
    /// What the service last synced of each copy's files.
    var seen: [[String: [UInt8]]]
    /// Real conflicts: two copies changed one file.
    var conflicts: [String] = []

    init(copies: [MemoryFolder]) {
        self.copies = copies
        online = Array(repeating: true, count: copies.count)
        seen = Array(repeating: [:], count: copies.count)
    }

    /// One random operation of the service.
    mutating func step(using rng: inout SplitMix64) {
        let k = Int.random(in: 0..<copies.count, using: &rng)
        guard online[k] else { return }
        switch Int.random(in: 0..<20, using: &rng) {
        case 0..<8: upload(k, using: &rng)
        case 8..<17: download(k, partly: Int.random(in: 0..<4, using: &rng) == 0, using: &rng)
        case 17: oddFile(k, using: &rng)
        case 18: bringBack(using: &rng)
        default: download(k, partly: false, using: &rng)
        }
    }

    /// Everything connected, everything copied whole, until nothing changes.
    mutating func settle() {
        for _ in 0..<3 {
            for k in copies.indices { while uploadOne(k, pick: { $0.first }) {} }
            for k in copies.indices { while downloadOne(k, partly: nil, pick: { $0.first }) {} }
        }
    }

    /// A local change of copy `k` sent to the server.
    mutating func upload(_ k: Int, using rng: inout SplitMix64) {
        _ = uploadOne(k) { $0.randomElement(using: &rng) }
    }

    @discardableResult
    mutating func uploadOne(_ k: Int, pick: ([String]) -> String?) -> Bool {
        let local = copies[k].files.withLock { $0 }
        var changed = local.keys.filter { local[$0] != seen[k][$0] }
        changed += seen[k].keys.filter { local[$0] == nil }
        guard let path = pick(changed.sorted()) else { return false }
        if let bytes = local[path] {
            if let current = server[path], current != bytes, current != seen[k][path] {
                // Changed here and on the server since this copy last synced it.
                conflicts.append(path)
                server[path + " (conflicted copy)"] = bytes
            } else {
                server[path] = bytes
                deleted[path] = nil
            }
            seen[k][path] = bytes
        } else {
            if let current = server.removeValue(forKey: path) { deleted[path] = current }
            seen[k][path] = nil
        }
        return true
    }

    /// A server change copied into copy `k`: a file whole or half-written, or a deletion.
    mutating func download(_ k: Int, partly: Bool, using rng: inout SplitMix64) {
        let cut = Double.random(in: 0..<1, using: &rng)
        _ = downloadOne(k, partly: partly ? cut : nil) { $0.randomElement(using: &rng) }
    }

    @discardableResult
    mutating func downloadOne(_ k: Int, partly cut: Double?, pick: ([String]) -> String?) -> Bool {
        let local = copies[k].files.withLock { $0 }
        // Files changed here and not yet uploaded are left alone (the upload resolves them).
        let pendingHere = Set(local.keys.filter { local[$0] != seen[k][$0] } + seen[k].keys.filter { local[$0] == nil })
        var incoming = server.keys.filter { server[$0] != local[$0] && !pendingHere.contains($0) }
        incoming += local.keys.filter { server[$0] == nil && deleted[$0] != nil && !pendingHere.contains($0) }
        guard let path = pick(incoming.sorted()) else { return false }
        if let bytes = server[path] {
            let delivered = cut.map { Array(bytes.prefix(Int(Double(bytes.count) * $0))) } ?? bytes
            copies[k].files.withLock { $0[path] = delivered }
            seen[k][path] = delivered
        } else {
            copies[k].files.withLock { $0[path] = nil }
            seen[k][path] = nil
        }
        return true
    }

    /// A file no reader may take appears in copy `k`: a conflicted copy of a file (Dropbox's
    /// and Syncthing's names), a service's temporary file, a half of one.
    mutating func oddFile(_ k: Int, using rng: inout SplitMix64) {
        guard let path = server.keys.sorted().randomElement(using: &rng), let bytes = server[path] else { return }
        let name: String = switch Int.random(in: 0..<3, using: &rng) {
        case 0: path + " (conflicted copy 2026-12-03)"
        case 1: String(path.dropLast(4)) + ".sync-conflict-20261203-101112-ABCDEFG.seg"
        default: path + ".tmp-1-1"
        }
        let delivered = Bool.random(using: &rng) ? bytes : Array(bytes.prefix(bytes.count / 2))
        copies[k].files.withLock { $0[name] = delivered }
        seen[k][name] = delivered
    }

    /// A file deleted on the server comes back (a service restoring it).
    mutating func bringBack(using rng: inout SplitMix64) {
        guard let path = deleted.keys.sorted().randomElement(using: &rng) else { return }
        server[path] = deleted.removeValue(forKey: path)
    }
}
