extension ReplicaSync {
    /// One sync through a shared folder (folder mode): pull what the sequencer published,
    /// write this device's pending submissions not yet in its directory as one sealed
    /// segment, remove its segments whose submissions all have their outcomes, pull again.
    /// A submission stays pending until its outcome is in a published segment.
    ///
    /// The steps a test may stop at are those of a shared log's sync: `beforeLock` before
    /// the segment is written, `afterAppend` after.
    ///
    /// - Throws: ``ReplicaError/unreachable(shared:reason:)`` when the folder cannot be read
    ///   or written, or is of a newer layout; ``ReplicaError/stopped(conflict:)`` once
    ///   another copy of the device is found.
    package mutating func sync(throughFolder folder: any FolderFiles) throws(ReplicaError) -> Report {
        shown = nil
        var report = Report()
        let read = reading(folder)
        try FolderLayout.checkLayout(of: folder, name: sharedName, mustExist: mirrorPosition > 0)
        try pull(read, into: &report, waiting: true)
        folder.removeStaleTemporaries(in: FolderLayout.deviceDirectory(device))
        let sent = try writeSegment(to: folder)
        do {
            try removeDecidedSegments(from: folder)
            try pull(read, into: &report, waiting: true)
        } catch { throw failure(error, after: sent) }
        report.position = mirrorPosition
        report.pending = queue.pending.count
        if case .stopped(let conflict) = queue.state { throw .stopped(conflict: conflict) }
        return report
    }

    /// Fetches the whole mirror again from what the folder publishes.
    package mutating func fetchMirrorAgain(fromFolder folder: any FolderFiles) throws(ReplicaError) -> Int {
        try FolderLayout.checkLayout(of: folder, name: sharedName, mustExist: true)
        return try fetchMirrorAgain(reading(folder))
    }

    /// How to read the shared log that `folder` publishes.
    private func reading(_ folder: any FolderFiles) -> Reading {
        { [sharedName] (position) throws(ReplicaError) in
            do throws(FolderFailure) {
                return try FolderLayout.publishedLines(in: folder, after: position)
            } catch {
                throw .unreachable(shared: sharedName, reason: error.description)
            }
        }
    }

    /// This device's segments in the folder that read whole, by name.
    private func ownSegments(in folder: any FolderFiles) throws(ReplicaError) -> [String: [Submission]] {
        let directory = FolderLayout.deviceDirectory(device)
        var segments: [String: [Submission]] = [:]
        do {
            for name in try folder.names(in: directory) {
                guard let (range, nonces) = FolderLayout.submissionSegment(name),
                      let bytes = FolderLayout.segmentBytes(folder, directory + "/" + name, count: Int64(range.count),
                                                            submissions: true),
                      let read = FolderLayout.readSubmissionSegment(bytes, device: device, range: range, nonces: nonces)
                else { continue }
                segments[name] = read.map(\.submission)
            }
        } catch {
            throw .unreachable(shared: sharedName, reason: error.description)
        }
        return segments
    }

    /// Writes the pending submissions that no segment of this device holds (from the first
    /// such to the last pending, so that a segment is one copy's chain) as one segment.
    /// Returns the submissions the folder holds now (written before, or now).
    private mutating func writeSegment(to folder: any FolderFiles) throws(ReplicaError) -> [SubmissionID] {
        let pushable = queue.pushable
        guard !pushable.isEmpty else { return [] }
        var written = Set<Submission>()
        for submissions in try ownSegments(in: folder).values { written.formUnion(submissions) }
        // A segment holding one of these numbers with another nonce: another copy of this
        // device (restored from a backup) used it. Stop before writing anything.
        var nonces: [SubmissionID: String] = [:]
        for submission in written { nonces[submission.id] = submission.nonce }
        if let taken = pushable.first(where: { submission in
            nonces[submission.id].map { $0 != submission.nonce } ?? false
        }) {
            try stop(conflict: taken.id)
            return []
        }
        guard let start = pushable.firstIndex(where: { submission in
            var sent = submission
            sent.localID = nil
            return !written.contains(sent)
        }) else { return pushable.map(\.id) }
        let chain = Array(pushable[start...])
        let first = chain[0].id
        let previous: String? = start > 0 && pushable[start - 1].id.number == first.number - 1
            ? pushable[start - 1].nonce
            : shared.outcomes[SubmissionID(device: device, number: first.number - 1).description]?.nonce
        if fault?(.beforeLock) == true { throw .interrupted(step: Step.beforeLock.rawValue) }
        let name = FolderLayout.submissionSegmentName(chain)
        do {
            try folder.write(FolderLayout.submissionSegment(chain, previous: previous),
                             to: FolderLayout.deviceDirectory(device) + "/" + name)
        } catch {
            throw .unreachable(shared: sharedName, reason: error.description)
        }
        if fault?(.afterAppend) == true { throw .interrupted(step: Step.afterAppend.rawValue) }
        return pushable.map(\.id)
    }

    /// Removes this device's segments whose every submission has its outcome (with its
    /// nonce) in the mirror: the shared log holds them. A sync service that brings one
    /// back changes nothing: the sequencer decides no command id twice.
    private func removeDecidedSegments(from folder: any FolderFiles) throws(ReplicaError) {
        let directory = FolderLayout.deviceDirectory(device)
        for (name, submissions) in try ownSegments(in: folder) {
            let decided = submissions.allSatisfy { shared.outcomes[$0.id.description]?.nonce == $0.nonce }
            guard decided else { continue }
            do { try folder.remove(directory + "/" + name) } catch {
                throw .unreachable(shared: sharedName, reason: error.description)
            }
        }
    }
}

extension FolderLayout {
    /// Refuses a folder whose layout file names another layout than this version's, and,
    /// with `mustExist`, a folder without one (not there: unmounted, or not synced to this
    /// device yet); a layout file that does not read is taken as half copied.
    package static func checkLayout(of folder: any FolderFiles, name: String, mustExist: Bool) throws(ReplicaError) {
        let bytes: [UInt8]?
        do { bytes = try folder.read(layoutFile) } catch { throw .unreachable(shared: name, reason: error.description) }
        guard let bytes else {
            guard !mustExist else {
                throw .unreachable(shared: name, reason: "it holds no \(layoutFile): the folder is not there (not "
                    + "mounted, or not synced to this device yet)")
            }
            return
        }
        guard let layout = layout(in: bytes) else { return }
        guard layout == version else { throw .folderLayout(path: name, layout: layout) }
    }

    /// The largest file a segment of `count` records can be (each record one line of a
    /// log): a reader skips a larger one without reading it (a stray file named like a
    /// segment).
    static func maximumBytes(of count: Int64) -> Int { Int(min(count, 1 << 20)) * (LogReader.maximumLineLength + 1) + 65_536 }

    /// The largest segment of submissions a reader takes. A submission is one line that
    /// holds a whole batch (an import, a revert of one), so its length has no bound of a
    /// log's line: only a file no batch a device sends could fill is skipped.
    static let maximumSubmissionSegmentBytes = 1 << 31

    /// The file at `path` when it is a regular file no larger than a segment of `count`
    /// records (or, with `submissions`, a segment of submissions) can be and it reads;
    /// `nil` otherwise (skipped: read again next time).
    static func segmentBytes(_ folder: any FolderFiles, _ path: String, count: Int64, submissions: Bool = false) -> [UInt8]? {
        let largest = submissions ? maximumSubmissionSegmentBytes : maximumBytes(of: count)
        guard let size = folder.size(of: path), size <= largest else { return nil }
        return try? folder.read(path)
    }

    /// The last position a whole published segment holds, looking from the highest named
    /// (for `status`; a few odd names above it are passed over).
    package static func publishedHead(in folder: any FolderFiles) throws(FolderFailure) -> Int64 {
        let named = try folder.names(in: logDirectory).compactMap { name in logSegmentRange(name).map { ($0, name) } }
            .sorted { $0.0.upperBound > $1.0.upperBound }
        for (range, name) in named.prefix(8) {
            if let bytes = segmentBytes(folder, logDirectory + "/" + name, count: Int64(range.count)),
               readLogSegment(bytes, range: range) != nil { return range.upperBound }
        }
        return 0
    }

    /// The shared log's records after `position` as the folder publishes them, with their
    /// lines, up to the first record no whole segment holds. Files that are not whole
    /// segments (half copied, unreadable, directories, too large) are skipped.
    /// - Complexity: O(*s* + *n*) for *s* segment names and the *n* bytes read.
    package static func publishedLines(in folder: any FolderFiles, after position: Int64) throws(FolderFailure)
        -> (records: [Record], bytes: [UInt8]) {
        var byFirst: [Int64: [(range: ClosedRange<Int64>, name: String)]] = [:]
        for name in try folder.names(in: logDirectory) {
            guard let range = logSegmentRange(name), range.upperBound > position else { continue }
            byFirst[range.lowerBound, default: []].append((range, name))
        }
        var records: [Record] = []
        var bytes: [UInt8] = []
        var next = position + 1
        while true {
            // The segments that start at `next`, longest first; else any that holds it.
            var candidates = (byFirst[next] ?? []).sorted { $0.range.upperBound > $1.range.upperBound }
            if candidates.isEmpty {
                candidates = byFirst.values.joined().filter { $0.range.contains(next) }
                    .sorted { $0.range.upperBound > $1.range.upperBound }
            }
            var taken = false
            for candidate in candidates {
                guard let file = segmentBytes(folder, logDirectory + "/" + candidate.name, count: Int64(candidate.range.count)),
                      let segment = readLogSegment(file, range: candidate.range) else { continue }
                let skip = Int(next - candidate.range.lowerBound)
                records += segment.records[skip...]
                bytes += segment.lines[(segment.lines.startIndex + segment.offsets[skip])...]
                next = candidate.range.upperBound + 1
                taken = true
                break
            }
            if !taken { break }
        }
        return (records, bytes)
    }
}
