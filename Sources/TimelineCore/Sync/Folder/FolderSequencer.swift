/// Why the sequencer of a shared folder could not do its work; every message says what to do.
public enum SequencerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The folder could not be read or written.
    case folder(path: String, reason: String)
    /// The shared log could not be read or appended to.
    case log(shared: String, reason: String)
    /// The folder is of a newer layout than this version reads.
    case newerLayout(folder: String, layout: Int)
    /// The folder publishes other records than the shared log holds.
    case anotherLog(folder: String, published: Int64, position: Int64)
    /// The folder publishes more records than the shared log holds: the log is an older
    /// copy of the one the folder was published from.
    case logBehind(folder: String, published: Int64, position: Int64)
    /// A run was stopped at a step on purpose (fault injection in tests).
    case interrupted(step: String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .folder(let path, let reason):
            "cannot use the shared folder at \(path): \(reason); nothing was lost"
        case .log(let shared, let reason): "the shared log \(shared) cannot be used: \(reason)"
        case .newerLayout(let folder, let layout):
            "the shared folder \(folder) is of layout \(layout); this version of Timeline reads layout "
                + "\(FolderLayout.version): update Timeline on this device"
        case .anotherLog(let folder, let published, let position):
            "the shared folder \(folder) publishes another log than this one (its records up to position \(published), "
                + "this log's up to \(position)): sequence it with the log it was published from, or give a new folder"
        case .logBehind(let folder, let published, let position):
            "the shared folder \(folder) publishes the shared log up to position \(published), but this log ends at "
                + "\(position): it is an older copy (restored from a backup?); sequence with the log the folder was "
                + "published from (a new folder would cut every device off)"
        case .interrupted(let step): "the sequencer was interrupted at \(step)"
        }
    }
}

/// The sequencer of a shared folder (folder mode, section 10), pure but for the folder and
/// the log it is handed: one run publishes the shared log's new records as sealed
/// segments, decides the devices' submissions it finds, in each device's number order,
/// following one chain per device, and publishes again.
///
/// A device's submission `D:n` is taken when `D:n-1` is decided with the nonce the segment
/// names before it (`prev`, or the previous line): when two copies of a device (one
/// restored from a backup) wrote different submissions `n`, one copy's chain is followed
/// and the other copy learns, from the published outcome's nonce, that it must stop.
package struct FolderSequencer {
    /// A point of a run where a test may stop it, as a kill would.
    package enum Step: String, Sendable, CaseIterable {
        /// After the decided submissions were appended, before they are published.
        case afterAppend
    }

    /// What one run did.
    package struct Report: Hashable, Sendable {
        /// Submissions decided.
        package var decided = 0
        /// Of those, accepted.
        package var accepted = 0
        /// Of those, rejected.
        package var rejected = 0
        /// Records published as new segments.
        package var published = 0
        /// Files skipped in the devices' directories (not whole yet, conflicted copies, other names).
        package var skipped = 0
        /// The shared log's position after the run.
        package var position: Int64 = 0
    }

    /// The shared log as far as the sequencer has read it.
    package private(set) var shared = SharedLogState()
    /// The last position the folder publishes, once checked.
    private var published: Int64?
    /// Device segments read whole, by path: they never change once sealed.
    private var segments: [String: [(submission: Submission, previous: String?)]] = [:]
    /// Device files skipped, by path, with their size then: not read again until it changes
    /// (a file being copied grows; a stray one stays as it is).
    private var skippedSizes: [String: Int] = [:]
    /// The folder's name, for messages.
    package let folderName: String
    /// The shared log's name, for messages.
    package let logName: String
    /// Stops a run at a step (tests' fault injection); `nil` in normal use.
    package var fault: (@Sendable (Step) -> Bool)?

    /// A sequencer that has read nothing yet.
    package init(folderName: String, logName: String) {
        self.folderName = folderName
        self.logName = logName
    }

    /// One run: publish, decide what the folder holds, publish again. `now` stamps the
    /// outcomes' records.
    package mutating func run(log: any BatchAppending, folder: any FolderFiles,
                              now: () -> DateValue?) throws(SequencerError) -> Report {
        var report = Report()
        try catchUp(log)
        try writeLayout(folder)
        report.published += try publish(log, folder)
        let chosen = try candidates(in: folder, skipped: &report.skipped)
        if !chosen.isEmpty {
            let recordedAt = now()
            let appended: [Record]
            do {
                appended = try log.appendEach(after: shared.position, count: chosen.count, catchingUp: { (records) throws(FactRefusal) in
                    try self.shared.apply(records)
                }, deciding: { (index) throws(FactRefusal) -> PlannedBatch? in
                    let (submission, previous) = chosen[index]
                    let options = AppendOptions(commandID: submission.id.description, recordedAt: recordedAt,
                                                submission: submission.nonce)
                    // The chain, checked again against what the log holds now.
                    guard self.follows(submission, previous) else { return PlannedBatch(facts: [], options: options) }
                    switch self.shared.decide(submission, recordedAt: recordedAt) {
                    case .append(let facts, let options): return PlannedBatch(facts: facts, options: options)
                    case .alreadyDecided, .outOfOrder: return PlannedBatch(facts: [], options: options)
                    }
                })
            } catch {
                switch error {
                case .log(let failure): throw .log(shared: logName, reason: failure.description)
                case .refused(let refusal):
                    throw .log(shared: logName, reason: "its \(refusal.place) breaks the rules: "
                        + refusal.rejection.description + "; verify the shared log")
                }
            }
            var batchStarts = 0
            var rejected = 0
            var index = 0
            while index < appended.count {
                batchStarts += 1
                if case .commandRejected = appended[index].facts.first { rejected += 1 }
                index += appended[index].batchRemainder + 1
            }
            report.decided = batchStarts
            report.rejected = rejected
            report.accepted = batchStarts - rejected
            if fault?(.afterAppend) == true { throw .interrupted(step: Step.afterAppend.rawValue) }
            report.published += try publish(log, folder)
        }
        report.position = shared.position
        return report
    }

    /// Whether `submission` comes next in its device's chain: its number follows the
    /// device's last decided one, whose nonce is `previous`.
    private func follows(_ submission: Submission, _ previous: String?) -> Bool {
        let id = submission.id
        guard id.number == (shared.lastNumbers[id.device] ?? 0) + 1 else { return false }
        guard id.number > 1 else { return true }
        return shared.outcomes[SubmissionID(device: id.device, number: id.number - 1).description]?.nonce == previous
    }

    /// Folds what the log holds beyond what was read.
    private mutating func catchUp(_ log: any EventLog) throws(SequencerError) {
        let records: [Record]
        do { records = try log.records(after: shared.position) } catch {
            throw .log(shared: logName, reason: error.description)
        }
        do { try shared.apply(records) } catch {
            throw .log(shared: logName, reason: "its \(error.place) breaks the rules: "
                + error.rejection.description + "; verify the shared log")
        }
    }

    /// Writes the layout file when the folder has none; refuses a folder of another layout.
    private func writeLayout(_ folder: any FolderFiles) throws(SequencerError) {
        do {
            if let bytes = try folder.read(FolderLayout.layoutFile) {
                guard let layout = FolderLayout.layout(in: bytes) else {
                    throw SequencerError.folder(path: folderName, reason: "its \(FolderLayout.layoutFile) names no layout: "
                        + "it is not a Timeline folder; give an empty directory for a new shared folder")
                }
                if layout != FolderLayout.version { throw SequencerError.newerLayout(folder: folderName, layout: layout) }
                return
            }
            // Section 10: exit 0 whenever DIR can be read and written; other files in it are skipped.
            try folder.write(FolderLayout.layoutFileContents, to: FolderLayout.layoutFile)
        } catch let error as FolderFailure {
            throw .folder(path: error.path, reason: error.reason)
        } catch let error as SequencerError {
            throw error
        } catch {
            throw .folder(path: folderName, reason: "\(error)")
        }
    }

    /// Publishes the log's records after what the folder publishes, in segments that end
    /// at batch boundaries; returns how many. The first time, checks that the folder's last
    /// published record is this log's.
    private mutating func publish(_ log: any EventLog, _ folder: any FolderFiles) throws(SequencerError) -> Int {
        folder.removeStaleTemporaries(in: FolderLayout.logDirectory)
        let end: Int64
        if let published { end = published } else { end = try checkPublished(log, folder) }
        published = end
        let read: (records: [Record], bytes: [UInt8])
        do { read = try log.linesForMirror(after: end) } catch { throw .log(shared: logName, reason: error.description) }
        var start = 0, lineStart = 0, index = 0
        var lineEnds: [Int] = []
        lineEnds.reserveCapacity(read.records.count)
        for (offset, byte) in read.bytes.enumerated() where byte == 0x0A { lineEnds.append(offset + 1) }
        while index < read.records.count {
            index += read.records[index].batchRemainder + 1
            guard index - start >= FolderLayout.recordsPerSegment || index == read.records.count else { continue }
            let first = read.records[start].position, last = read.records[index - 1].position
            let lines = Array(read.bytes[lineStart..<lineEnds[index - 1]])
            let segment = FolderLayout.logSegment(first: first, last: last, lines: lines)
            let path = FolderLayout.logDirectory + "/" + FolderLayout.logSegmentName(first: first, last: last)
            let existing: [UInt8]?
            do { existing = folder.size(of: path) == nil ? nil : try folder.read(path) } catch {
                throw .folder(path: folderName, reason: error.description)
            }
            // Another run published it already (two runs of this sequencer at once): not written
            // again. A whole segment of other records there is another sequencer's, publishing
            // another log into this folder: never written over (every device would fork).
            if let existing, existing != segment, FolderLayout.readLogSegment(existing, range: first...last) != nil {
                throw .anotherLog(folder: folderName, published: last, position: log.position)
            }
            if existing != segment {
                do { try folder.write(segment, to: path) } catch {
                    throw .folder(path: folderName, reason: error.description)
                }
            }
            published = last
            start = index
            lineStart = lineEnds[index - 1]
        }
        return read.records.count
    }

    /// The last position the folder publishes in whole segments from the first record,
    /// checked against the log: its last record must be the log's record there.
    private func checkPublished(_ log: any EventLog, _ folder: any FolderFiles) throws(SequencerError) -> Int64 {
        let read: (records: [Record], bytes: [UInt8])
        do { read = try FolderLayout.publishedLines(in: folder, after: 0) } catch {
            throw .folder(path: folderName, reason: error.description)
        }
        guard let last = read.records.last else { return 0 }
        // The last record both hold must be the same: else another log; a log that ends
        // before the folder's last record is an older copy of it.
        let common = min(last.position, log.position)
        let ours: [Record]
        do { ours = common > 0 ? try log.records(after: common - 1) : [] } catch {
            throw .log(shared: logName, reason: error.description)
        }
        guard common == 0 || ours.first == read.records[Int(common - read.records[0].position)] else {
            throw .anotherLog(folder: folderName, published: last.position, position: log.position)
        }
        guard last.position <= log.position else {
            throw .logBehind(folder: folderName, published: last.position, position: log.position)
        }
        return last.position
    }

    /// The submissions to decide, in order: each device's chain from its next number,
    /// devices interleaved by the time their submissions were made.
    private mutating func candidates(in folder: any FolderFiles, skipped: inout Int) throws(SequencerError)
        -> [(submission: Submission, previous: String?)] {
        var chains: [[(submission: Submission, previous: String?)]] = []
        do {
            for deviceName in try folder.names(in: FolderLayout.devicesDirectory).sorted() {
                guard let device = DeviceID(deviceName) else {
                    skipped += 1
                    continue
                }
                let directory = FolderLayout.deviceDirectory(device)
                let decided = shared.lastNumbers[device] ?? 0
                var byNumber: [Int64: [(submission: Submission, previous: String?)]] = [:]
                // A device entry that is not a directory it can list: skipped, the others decided.
                guard let names = try? folder.names(in: directory) else {
                    skipped += 1
                    continue
                }
                for name in names {
                    guard let (range, nonces) = FolderLayout.submissionSegment(name) else {
                        skipped += 1
                        continue
                    }
                    guard range.upperBound > decided else { continue }
                    let path = directory + "/" + name
                    if segments[path] == nil {
                        let size = folder.size(of: path)
                        guard size == nil || skippedSizes[path] != size,
                              let bytes = FolderLayout.segmentBytes(folder, path, count: Int64(range.count), submissions: true),
                              let read = FolderLayout.readSubmissionSegment(bytes, device: device, range: range, nonces: nonces)
                        else {
                            // Not whole yet, or not a segment: read again once its size changes.
                            skipped += 1
                            if let size { skippedSizes[path] = size }
                            continue
                        }
                        segments[path] = read
                        skippedSizes[path] = nil
                    }
                    for entry in segments[path]! where entry.submission.id.number > decided {
                        byNumber[entry.submission.id.number, default: []].append(entry)
                    }
                }
                // One copy's chain: each submission after the one decided (or chosen) before it.
                var chain: [(submission: Submission, previous: String?)] = []
                var number = decided + 1
                var previous = decided == 0 ? nil
                    : shared.outcomes[SubmissionID(device: device, number: decided).description]?.nonce
                while let entries = byNumber[number] {
                    // Copies of one device (one restored from a backup) may leave two chains:
                    // the one made first is decided (what the older copy acknowledged is kept,
                    // the other copy stops), then the nonce, for a choice every run repeats.
                    let next = entries.filter { $0.previous == previous }.min {
                        ($0.submission.madeAt?.text ?? "", $0.submission.nonce) < ($1.submission.madeAt?.text ?? "", $1.submission.nonce)
                    }
                    guard let next else { break }
                    chain.append(next)
                    previous = next.submission.nonce
                    number += 1
                }
                if !chain.isEmpty { chains.append(chain) }
            }
        } catch {
            throw .folder(path: folderName, reason: error.description)
        }
        // Interleaved by the time made, each device's chain kept in its order.
        var order: [(submission: Submission, previous: String?)] = []
        var next = [Int](repeating: 0, count: chains.count)
        while true {
            var best: Int?
            for k in chains.indices where next[k] < chains[k].count {
                guard let current = best else {
                    best = k
                    continue
                }
                let a = chains[k][next[k]].submission.madeAt?.text ?? "", b = chains[current][next[current]].submission.madeAt?.text ?? ""
                if a < b { best = k }
            }
            guard let k = best else { break }
            order.append(chains[k][next[k]])
            next[k] += 1
        }
        // Segments of submissions all decided are dropped from memory.
        segments = segments.filter { _, entries in
            entries.contains { entry in entry.submission.id.number > (shared.lastNumbers[entry.submission.id.device] ?? 0) }
        }
        return order
    }
}
