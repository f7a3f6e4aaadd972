import Foundation
import SystemShim

/// Why a shared folder's file could not be listed, read, written or removed.
package struct FolderFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file or directory, relative to the folder.
    package var path: String
    /// What went wrong.
    package var reason: String

    /// A failure at `path`.
    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    package var description: String { reason.contains(path) ? reason : "\(path): \(reason)" }
}

/// The files of a shared folder as one device sees them: a directory on disk, copied
/// between devices by a file-sync service; in the simulation, each device's copy in memory.
/// Paths are relative to the folder and use `/`.
package protocol FolderFiles: Sendable {
    /// The names of the files and directories in `directory`, in no order; none when it
    /// does not exist.
    func names(in directory: String) throws(FolderFailure) -> [String]
    /// The file's bytes, or `nil` when there is none.
    func read(_ path: String) throws(FolderFailure) -> [UInt8]?
    /// Writes the file whole and durably under a temporary name, then renames it (making
    /// the directories on the way): a reader sees no file or all of it.
    func write(_ bytes: [UInt8], to path: String) throws(FolderFailure)
    /// Removes the file, if it is there.
    func remove(_ path: String) throws(FolderFailure)
    /// The file's size in bytes, or `nil` when it is not a regular file (a directory, a
    /// link to one, nothing): a reader checks it before reading a file whole.
    func size(of path: String) -> Int?
    /// Removes the temporary files a writer of this device left in `directory` when it
    /// was killed between writing and renaming them (never one a live process writes).
    func removeStaleTemporaries(in directory: String)
}

extension FolderFiles {
    /// Nothing is left behind.
    package func removeStaleTemporaries(in directory: String) {}
}

/// A shared folder on disk.
package struct DirectoryFolder: FolderFiles {
    /// The folder's path.
    package let root: String

    /// The folder at `root`.
    package init(root: String) { self.root = root }

    private func full(_ path: String) -> String { root + "/" + path }

    private func failure(_ path: String, _ operation: String, _ code: Int32 = errno) -> FolderFailure {
        FolderFailure(path: full(path), reason: "\(operation): \(String(cString: strerror(code)))")
    }

    package func names(in directory: String) throws(FolderFailure) -> [String] {
        guard let stream = opendir(full(directory)) else {
            if errno == ENOENT { return [] }
            throw failure(directory, "opendir")
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    package func read(_ path: String) throws(FolderFailure) -> [UInt8]? {
        do { return try DurableFile.read(full(path)) } catch {
            // Gone between listing and reading (a sync service, or its writer, removed it).
            if case .io(_, _, let code) = error, code == ENOENT { return nil }
            throw FolderFailure(path: full(path), reason: error.description)
        }
    }

    package func write(_ bytes: [UInt8], to path: String) throws(FolderFailure) {
        var directory = ""
        for part in path.split(separator: "/").dropLast() {
            directory += (directory.isEmpty ? "" : "/") + part
            if mkdir(full(directory), 0o755) != 0, errno != EEXIST { throw failure(directory, "mkdir") }
        }
        do { try DurableFile.write(bytes, to: full(path)) } catch {
            throw FolderFailure(path: full(path), reason: error.description)
        }
    }

    package func remove(_ path: String) throws(FolderFailure) {
        if unlink(full(path)) != 0, errno != ENOENT { throw failure(path, "unlink") }
    }

    package func size(of path: String) -> Int? {
        var info = stat()
        guard stat(full(path), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    package func removeStaleTemporaries(in directory: String) {
        guard let names = try? names(in: directory) else { return }
        // `NAME.tmp-PID-N` (``DurableFile``'s temporaries): those of processes that no longer run.
        var finals = Set<String>()
        for name in names {
            guard let range = name.range(of: ".tmp-", options: .backwards) else { continue }
            finals.insert(full(directory) + "/" + name[..<range.lowerBound])
        }
        for final in finals { DurableFile.removeTemporaries(of: final) }
    }
}
