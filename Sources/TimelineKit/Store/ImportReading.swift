import Dispatch
import Synchronization
import SystemShim
import TimelineCore
import TimelineProjections

/// A log to import, read whole (``LogInput``: a file, a pipe, a FIFO, standard input) and
/// checked as a log: its facts, the line each came from, and, for an import into an empty
/// log, their fold, which ``TimelineStore/importFacts(_:lines:commandID:foldedOnAnEmptyLog:)``
/// takes instead of applying the facts again.
package struct ImportReading: Sendable {
    /// Every fact, in order.
    package var facts: [Fact]
    /// The line each fact came from.
    package var lines: [Int]
    /// The input's torn last line, if it ends in one (an import then refuses).
    package var tornTail: LogReader.TornTail?
    /// The facts folded from an empty state, checked against the rules, when asked for.
    package var folded: TimelineProjection?

    /// Why an input could not be read as a log to import.
    package enum Failure: Error {
        /// A read failed, or a line is not a record.
        case log(EventLogError)
        /// A fact the rules refuse, checked from an empty state while folding.
        case fact(LogReader.Failure)
    }

    /// Reads `input` to its end, a chunk at a time. With `foldingInto` views (an import
    /// into a log that has no records yet), the facts are checked as they are read, as the
    /// new store would check them, and folded into a projection of those views.
    package static func read(_ input: LogInput, foldingInto views: [ViewDefinition]?,
                             now: Instant) throws(Failure) -> ImportReading {
        var fold = views.map { TimelineProjection.Loader(views: $0, now: now, validating: true) }
        let gathering = FactGathering(expectedBytes: input.size)
        let ending: LogInput.Ending
        var refused: LogReader.Failure?
        do {
            ending = try input.forEachChunk { contents in
                do throws(LogReader.Failure) { try fold?.add(contents) } catch {
                    refused = error
                    throw error
                }
                gathering.add(contents)
            }
        } catch {
            // The reading throws only `EventLogError`s; the body only the fold's refusals.
            if let refused { throw .fact(refused) }
            throw .log(error as? EventLogError ?? .io(path: input.name, operation: "read", code: EIO))
        }
        let (facts, lines) = gathering.finish()
        return ImportReading(facts: facts, lines: lines, tornTail: ending.tornTail, folded: fold.take()?.finish())
    }
}

/// An import's facts, and the line each came from, gathered from the chunks read on a
/// thread of their own, while the caller folds the next chunk (copying them is a large
/// share of the fold's time, so it is not done on the caller's thread).
///
/// The chunks' records are freed only once every chunk is read: freeing a million small
/// arrays while other threads allocate for the chunks still being decoded cost more
/// processor time than reading them (glibc's allocator locks and merges as it frees).
final class FactGathering: Sendable {
    /// The facts and their lines so far, and the chunks they came from (freed by ``finish()``).
    private let state = Mutex<(facts: [Fact], lines: [Int], chunks: [LogReader.Contents])>(([], [], []))
    /// Serial: the chunks are gathered in the order they were added.
    private let queue = DispatchQueue(label: "timeline.import.gathering")
    /// The input's size, when known: room for all the facts is made after the first
    /// chunk, from its facts per byte, so that the arrays are not copied as they grow.
    private let expectedBytes: Int?

    init(expectedBytes: Int?) { self.expectedBytes = expectedBytes }

    /// Gathers the facts of `contents`, after those of the chunks added before.
    func add(_ contents: LogReader.Contents) {
        queue.async { [self] in
            state.withLock { state in
                if state.facts.isEmpty, let total = expectedBytes, let through = contents.offsets.last, through > 0 {
                    let facts = contents.records.reduce(0) { $0 + $1.facts.count }
                    // A twentieth more than the first chunk's rate, in case later lines are
                    // shorter; never more than a fact per 32 bytes (the shortest fact's line
                    // is longer), whatever a first chunk of a few long lines suggests.
                    let rate = Double(total) / Double(through) * Double(facts) * 1.05
                    let expected = Int(min(rate, Double(total / 32)))
                    state.facts.reserveCapacity(expected)
                    state.lines.reserveCapacity(expected)
                }
                for (record, line) in zip(contents.records, contents.lineNumbers) {
                    state.facts += record.facts
                    state.lines += repeatElement(line, count: record.facts.count)
                }
                state.chunks.append(contents)
            }
        }
    }

    /// Every fact added, in order, with its line; waits for the chunks still being
    /// gathered, and frees the chunks on the gathering thread, while the caller goes on.
    func finish() -> (facts: [Fact], lines: [Int]) {
        queue.sync {}
        let (gathered, chunks) = state.withLock { state in
            defer { state = ([], [], []) }
            return ((state.facts, state.lines), state.chunks)
        }
        // The block holds the chunks' last reference: they are freed on the gathering thread.
        queue.async { withExtendedLifetime(chunks) {} }
        return gathered
    }
}

