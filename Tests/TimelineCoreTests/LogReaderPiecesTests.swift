import Testing
import TimelineTestSupport

@testable import TimelineCore

/// Reading a log cut into pieces decoded at the same time gives exactly what reading it
/// line by line gives: the same records, offsets, line numbers, torn tail and valid length,
/// or the same first error.
@Suite("Reading a log in pieces")
struct LogReaderPiecesTests {
    /// A log of valid records with batches and blank lines, then damaged in one of several ways.
    static func randomLog(seed: UInt64) throws -> [UInt8] {
        var random = RandomRecords(seed: seed)
        let encoder = RecordEncoder(layout: seed % 3 == 0 ? .plain : .store)
        var bytes: [UInt8] = []
        var position: Int64 = 0
        let recordCount = Int.random(in: 0...60, using: &random.rng)
        while position < recordCount {
            let batch = Int.random(in: 1...4, using: &random.rng)
            for remainder in (0..<batch).reversed() {
                position += 1
                let record = Record(position: position, fact: try random.fact(), recordedAt: nil,
                                    commandID: random.rng.chance(20) ? "c\(position)" : nil, batchRemainder: remainder)
                encoder.encode(record, into: &bytes)
                if random.rng.chance(10) { bytes += Array("  \n".utf8) }
            }
        }
        switch random.rng.below(8) {
        case 0 where !bytes.isEmpty:  // a write cut short
            bytes.removeLast(Int.random(in: 1...min(40, bytes.count), using: &random.rng))
        case 1 where !bytes.isEmpty:  // a flipped bit somewhere
            let at = random.rng.below(bytes.count)
            bytes[at] ^= UInt8(1) << UInt8(random.rng.below(8))
        case 2:  // a line that is not JSON in the middle
            let at = bytes.indices.filter { bytes[$0] == 0x0A }.randomElement(using: &random.rng).map { $0 + 1 } ?? 0
            bytes.insert(contentsOf: Array("not json\n".utf8), at: at)
        case 3 where !bytes.isEmpty:  // a line repeated: a position out of order
            let newlines = bytes.indices.filter { bytes[$0] == 0x0A }
            if newlines.count >= 2 {
                let i = random.rng.below(newlines.count - 1)
                let line = Array(bytes[(newlines[i] + 1)...newlines[i + 1]])
                bytes.insert(contentsOf: line, at: newlines[i] + 1)
            }
        default:
            break
        }
        return bytes
    }

    enum Outcome: Equatable {
        case read(records: [Record], offsets: [Int], lines: [Int], torn: LogReader.TornTail?, valid: Int)
        case failed(LogReader.Failure)
    }

    static func outcome(_ reader: LogReader, _ bytes: [UInt8]) -> Outcome {
        do {
            let contents = try reader.read(bytes)
            return .read(records: contents.records, offsets: contents.offsets, lines: contents.lineNumbers,
                         torn: contents.tornTail, valid: contents.validLength)
        } catch {
            return .failed(error)
        }
    }

    @Test func piecesGiveWhatOnePieceGives() throws {
        var failures = 0, torn = 0
        for seed in UInt64(0)..<300 {
            let bytes = try Self.randomLog(seed: seed)
            let whole = Self.outcome(LogReader(pieceCount: 1), bytes)
            if case .failed = whole { failures += 1 }
            if case .read(_, _, _, let tail?, _) = whole, tail.length > 0 { torn += 1 }
            for pieces in [2, 3, 7] {
                #expect(Self.outcome(LogReader(pieceCount: pieces), bytes) == whole, "seed \(seed), \(pieces) pieces")
            }
            #expect(Self.outcome(LogReader(), bytes) == whole, "seed \(seed), default pieces")
        }
        // The damage reached both outcomes, so the comparison covered errors and torn tails.
        #expect(failures > 20)
        #expect(torn > 5)
    }

    @Test func boundsCoverTheLogAtLineEnds() {
        let bytes = Array("a\nbb\n\nccc\nd".utf8)
        bytes.withUnsafeBytes { raw in
            for count in 1...12 {
                let bounds = LogPieces.pieceBounds(raw, count: count)
                #expect(bounds.first?.lowerBound == 0 && bounds.last?.upperBound == bytes.count)
                for (a, b) in zip(bounds, bounds.dropFirst()) {
                    #expect(a.upperBound == b.lowerBound)
                    #expect(bytes[a.upperBound - 1] == 0x0A)
                }
            }
        }
    }
}
