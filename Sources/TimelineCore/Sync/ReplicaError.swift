/// Why a replica could not do what was asked; every message says what to do.
public enum ReplicaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The shared log could not be read or appended to (unreachable, locked out, gone).
    case unreachable(shared: String, reason: String)
    /// There is no shared log at `shared` (a file that is not there, a database log never
    /// made or dropped): clone, sync and the sequencer never create one.
    case noSharedLog(shared: String)
    /// The shared log was reached but is not one a replica can sync with: a line that is
    /// not a record, a record the rules refuse, or a replica's mirror where it should be.
    /// Syncing again does not help; the shared log must be repaired or restored.
    case sharedLogDamaged(shared: String, reason: String)
    /// The shared log no longer continues the mirror: it was replaced, or is another log.
    case sharedLogChanged(shared: String, position: Int64)
    /// One of the replica's own files could not be read or written.
    case storage(path: String, reason: String)
    /// Submissions reached the shared log (or the shared folder, for its sequencer), but one
    /// of the replica's own files could not be written after: they must not be sent again.
    case sentNotRecorded(shared: String, sent: [SubmissionID], path: String, reason: String)
    /// One of the replica's own files is damaged.
    case damaged(path: String, reason: String)
    /// Nothing at `path` says it is a replica (no identity, queue or pending submissions
    /// beside it): a plain log, or nothing at all.
    case notAReplica(path: String)
    /// Another copy of this device used one of its command ids: it pushes nothing more.
    case stopped(conflict: SubmissionID)
    /// A sync was stopped at a step on purpose (fault injection in tests).
    case interrupted(step: String)
    /// The directory given as a shared folder holds no layout file: no sequencer has
    /// published into it (or the folder has not reached this device yet).
    case notSharedFolder(path: String)
    /// The shared folder's layout file names a layout this version does not read (`nil`:
    /// it names none).
    case folderLayout(path: String, layout: Int?)

    /// Why the shared log `shared` failed with `error`: damaged (a line that is not a
    /// record: syncing again does not help) or unreachable (the next sync may reach it).
    package static func sharedLog(_ shared: String, failed error: EventLogError) -> ReplicaError {
        if case .invalidLine = error { return .sharedLogDamaged(shared: shared, reason: error.description) }
        return .unreachable(shared: shared, reason: error.description)
    }

    /// Whether the shared log could not be reached (the next sync may reach it, or, for
    /// one that is not there, a sync once it is put back).
    package var isUnreachable: Bool {
        switch self {
        case .unreachable, .noSharedLog: true
        default: false
        }
    }

    /// Whether `path` names a replica's mirror, not one of the files beside it (`LOCAL.*`).
    private static func isMirror(_ path: String) -> Bool {
        ![".replica", ".queue", ".pending"].contains { path.hasSuffix($0) }
    }

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .unreachable(let shared, let reason):
            "the shared log \(shared) cannot be reached: \(reason); nothing is lost: what was sent stays pending "
                + "and the next sync sends it"
        case .noSharedLog(let shared):
            "there is no shared log at \(shared): clone, sync and the sequencer never create one (was it moved, "
                + "renamed or removed?); nothing is lost: what was sent stays pending"
        case .sharedLogDamaged(let shared, let reason):
            "the shared log \(shared) cannot be synced with: \(reason); repair or restore it on the device that "
                + "keeps it (nothing on this device is lost)"
        case .sharedLogChanged(let shared, let position):
            "the shared log \(shared) no longer continues this replica's mirror at position \(position): it was "
                + "replaced, or is another log (if it was restored from an older copy, it lost records this mirror "
                + "still holds: keep this replica's files until the shared log is put right); make a new replica by "
                + "cloning the shared log (the pending submissions are kept in this one)"
        case .storage(let path, let reason): "cannot use \(path): \(reason); nothing was lost"
        case .sentNotRecorded(let shared, let sent, let path, let reason):
            "\(sent.map(\.description).joined(separator: ", ")) " + (sent.count == 1 ? "was" : "were")
                + " sent to \(shared) (do not send " + (sent.count == 1 ? "it" : "them") + " again), but this "
                + "replica could not record that: cannot use \(path): \(reason); nothing was lost: once \(path) "
                + "can be written, the next sync takes in the outcome"
        case .damaged(let path, let reason) where Self.isMirror(path):
            "the replica's mirror \(path) is damaged: \(reason); a sync or a repair fetches it again from the shared "
                + "log, keeping what is pending"
        case .damaged(let path, let reason) where reason.contains(": not a submission (P…)"):
            "the replica's file \(path) is damaged: \(reason); if that line is none of this replica's sends (added "
                + "by hand or by another program: a send begins P{\"command\":…), delete it; otherwise restore the "
                + "file from a backup (moving it aside drops what it holds)"
        case .damaged(let path, let reason):
            "the replica's file \(path) is damaged: \(reason); restore it from a backup (moving it aside drops what "
                + "it holds)"
        case .notAReplica(let path):
            "\(path) is not a replica (there is no \(path).replica beside it): make one by cloning the shared log"
        case .stopped(let id):
            "another copy of this device (restored from a backup, or copied) already used the command id \(id): "
                + "this replica pushes nothing more; its pending submissions are kept: make a new replica by "
                + "cloning the shared log and send them again from it"
        case .interrupted(let step): "the sync was interrupted at \(step)"
        case .notSharedFolder(let path):
            "\(path) is not a shared folder yet (it holds no \(FolderLayout.layoutFile)): run the sequencer on "
                + "the device that keeps the shared log, and wait for the folder to reach this device"
        case .folderLayout(let path, let layout?):
            "the shared folder \(path) is of layout \(layout); this version of Timeline reads layout "
                + "\(FolderLayout.version): update Timeline on this device (nothing was lost)"
        case .folderLayout(let path, nil):
            "the shared folder \(path) holds a \(FolderLayout.layoutFile) that names no layout: it is not a Timeline "
                + "folder, or the file is still being copied; try again once the folder has synced"
        }
    }
}
