import Dispatch
import Synchronization

extension FileEventLog {
    /// Writes the groups of a big batch's lines in order, on one thread of its own, while
    /// the caller encodes the next group: copying the lines into the kernel's cache takes
    /// its time beside the encoding, not after it. One thread makes every write, so
    /// the writes are made in order, one group at a time, as by the caller.
    final class GroupWriter: Sendable {
        private struct State {
            var groups: [(parts: [[UInt8]], offset: Int)] = []
            /// The first write that failed; the groups after it are not written.
            var failure: EventLogError?
            var ended = false
        }
        private let file: SystemFile
        private let state = Mutex(State())
        /// Signalled for each group handed over, and once more when there are no more.
        private let handedOver = DispatchSemaphore(value: 0)
        /// Signalled when the writer can take a group: one group waits at most.
        private let room = DispatchSemaphore(value: 0)
        /// Signalled when the writer has ended.
        private let writerEnded = DispatchSemaphore(value: 0)

        init(file: SystemFile) {
            self.file = file
            // Made at 0 and raised: a semaphore must never end below the value it was made with.
            room.signal()
            // A queue of its own, not a global one: its thread is not one of the few that
            // the encoding's concurrentPerform shares, which this loop would take from it.
            DispatchQueue(label: "timeline.log.group-writer").async { [self] in
                while true {
                    handedOver.wait()
                    guard let group = state.withLock({ $0.groups.isEmpty ? nil : $0.groups.removeFirst() }) else { break }
                    if state.withLock({ $0.failure == nil }) {
                        do throws(EventLogError) { try writeNow(group.parts, at: group.offset) } catch {
                            state.withLock { $0.failure = error }
                        }
                    }
                    room.signal()
                }
                writerEnded.signal()
            }
        }

        private func writeNow(_ parts: [[UInt8]], at offset: Int) throws(EventLogError) {
            var end = offset
            for part in parts {
                try file.write(part, at: end)
                end += part.count
            }
            file.startWriting(at: offset, count: end - offset)
        }

        /// Hands over a group's parts, to be written from `offset` once the group before is
        /// written; throws the failure of a group before it.
        func write(_ parts: [[UInt8]], at offset: Int) throws(EventLogError) {
            room.wait()
            let failure = state.withLock { state in
                if state.failure == nil { state.groups.append((parts, offset)) }
                return state.failure
            }
            if let failure {
                room.signal()
                throw failure
            }
            handedOver.signal()
        }

        /// Waits until every group handed over is written, and throws the first failure.
        func finish() throws(EventLogError) {
            waitForAll()
            if let error = state.withLock({ $0.failure }) { throw error }
        }

        /// Tells the writer that no group follows and waits until it has ended (at once
        /// when it has).
        func waitForAll() {
            let ending = state.withLock { state in
                defer { state.ended = true }
                return !state.ended
            }
            guard ending else { return }
            handedOver.signal()
            writerEnded.wait()
        }
    }
}
