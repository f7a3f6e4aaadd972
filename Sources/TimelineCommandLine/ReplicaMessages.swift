import Foundation
import TimelineCore
import TimelineKit

extension Runner {
    /// The message of a replica's failure, with the tool's command that does what the
    /// library's message says to do, for the replica at `local` on `shared` when known.
    func replicaMessage(_ error: any Error, local: String? = nil, shared: String? = nil) -> String {
        guard let error = error as? ReplicaError else { return "\(error)" }
        let replica = local.map(shellWord) ?? "LOCAL"
        let advice: String? = switch error {
        case .unreachable: "to send what is pending once it can be reached: timeline sync --log \(replica)"
        case .noSharedLog: "once the shared log is back where the replica names it: timeline sync --log \(replica)"
        case .sharedLogDamaged(let shared, _) where TimelineReplica.isReplica(shared):
            "a replica's mirror cannot stand in for the shared log: restore the shared log from a backup"
        case .sharedLogDamaged(let shared, let reason) where !DatabaseLogs.isURL(shared):
            "to see what is wrong with it: timeline verify --log \(shellWord(shared))"
                + (local.flatMap { Self.mirroredLine(named: reason, in: $0) }.map { line in
                    "\nthis replica's mirror holds line \(line) as it was synced (line \(line) of \(replica), byte for "
                        + "byte): put it back in the shared log in place of the damaged one, rather than repair it "
                        + "(repair moves the damaged line aside, and the record with it)"
                } ?? "")
        case .sharedLogChanged(let shared, _): "to make a new replica: timeline clone \(shellWord(shared)) --log NEW"
        case .notAReplica: "to make one: timeline clone \(shared.map(shellWord) ?? "SHARED") --log NEW"
        case .stopped: "to make a new replica: timeline clone \(shared.map(shellWord) ?? "SHARED") --log NEW"
        case .notSharedFolder(let path):
            "on the device that keeps the shared log: timeline sequence --log SHARED --folder \(shellWord(path))"
        case .damaged(let path, _) where path == local: "to fetch the mirror again: timeline repair --log \(replica)"
        case .storage(_, let reason) where reason.hasSuffix("(errno \(ENOSPC))"): "make room on the disk, then run it again"
        case .sentNotRecorded(_, _, _, let reason) where reason.hasSuffix("(errno \(ENOSPC))"):
            "make room on the disk, then, to take in the outcome: timeline sync --log \(replica)"
        case .sentNotRecorded: "to take in the outcome: timeline sync --log \(replica)"
        default: nil
        }
        return error.description + (advice.map { "\n" + $0 } ?? "")
    }

    /// The line named in a shared log's damage (`…: line N: …`), when the mirror at `local`
    /// holds a line N: the shared log's line as it was synced (a mirror is its copy, byte for byte).
    static func mirroredLine(named reason: String, in local: String) -> Int? {
        guard let range = reason.range(of: ": line ") else { return nil }
        guard let line = Int(reason[range.upperBound...].prefix { $0.isNumber }), line >= 1,
              let mirror = FileHandle(forReadingAtPath: local) else { return nil }
        defer { try? mirror.close() }
        // Read until line N is whole: a mirror's early damage does not read the whole file.
        var lines = 0
        while lines < line, let chunk = try? mirror.read(upToCount: 1 << 20), !chunk.isEmpty {
            lines += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return lines >= line ? line : nil
    }
}
