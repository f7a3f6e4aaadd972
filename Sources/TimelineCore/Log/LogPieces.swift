import Dispatch
import Synchronization
import SystemShim

/// A log's lines, decoded piece by piece: the first step of ``LogReader/read(_:)-(UnsafeRawBufferPointer)``.
///
/// Decoding a line does not depend on where it is in the log, so a large log is cut at
/// line boundaries into one piece per processor and the pieces are decoded at the same
/// time; the reader then checks positions and batches in order. Each piece stops at its
/// first bad line: reading stops there, and nothing after it is needed.
struct LogPieces {
    /// A line: where it starts, where the next one starts, and what it holds.
    struct Line {
        enum Content {
            case blank
            case tooLong(Int)
            case failure(RecordError.Reason)
            case decoded(DecodedLine)
        }

        var start: Int
        var next: Int
        var endsWithNewline: Bool
        var content: Content
    }

    /// Each piece's lines, in order.
    private(set) var pieces: [[Line]]
    /// How many lines the pieces hold.
    let lineCount: Int

    /// Logs smaller than this are decoded in one piece (starting threads costs more).
    static let minimumPieceBytes = 1 << 20

    /// Takes the lines of piece `index` out, leaving it empty.
    mutating func take(_ index: Int) -> [Line] {
        var lines: [Line] = []
        swap(&lines, &pieces[index])
        return lines
    }

    /// Splits `bytes` into pieces at line boundaries and decodes them.
    ///
    /// `pieceCount` overrides the number of pieces (for tests); by default a log gets one
    /// piece per processor, and one piece per MiB at most.
    static func scan(_ bytes: UnsafeRawBufferPointer, decoder: RecordDecoder, pieceCount: Int? = nil) -> LogPieces {
        let processors = max(1, ProcessInfoCount.active)
        let count = pieceCount ?? max(1, min(processors, bytes.count / minimumPieceBytes))
        let bounds = pieceBounds(bytes, count: count)
        if bounds.count == 1 {
            let lines = scanPiece(bytes, bounds[0], decoder: decoder)
            return LogPieces(pieces: [lines], lineCount: lines.count)
        }
        let shared = SharedBytes(bytes: bytes)
        let pieces = concurrentMap(bounds.count) { scanPiece(shared.bytes, bounds[$0], decoder: decoder) }
        // A piece after a bad line is never read: the bad line ends reading.
        var kept: [[Line]] = []
        for piece in pieces {
            kept.append(piece)
            if let last = piece.last, last.stopsReading { break }
        }
        return LogPieces(pieces: kept, lineCount: kept.reduce(0) { $0 + $1.count })
    }

    /// Ranges that cover `bytes`, each ending just after a newline (the last at the end).
    static func pieceBounds(_ bytes: UnsafeRawBufferPointer, count: Int) -> [Range<Int>] {
        var bounds: [Range<Int>] = []
        var start = 0
        for piece in 1..<max(1, count) {
            let target = max(start, bytes.count * piece / count)
            guard let newline = LogReader.firstNewline(in: bytes, from: target) else { break }
            bounds.append(start..<(newline + 1))
            start = newline + 1
        }
        bounds.append(start..<bytes.count)
        return bounds.filter { !$0.isEmpty || bounds.count == 1 }
    }

    /// Decodes the lines of one piece, up to and including its first bad line.
    static func scanPiece(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, decoder: RecordDecoder) -> [Line] {
        var lines: [Line] = []
        var start = range.lowerBound
        let end = range.upperBound
        while start < end {
            let newline = LogReader.firstNewline(in: bytes, from: start).flatMap { $0 < end ? $0 : nil }
            let lineEnd = newline ?? end
            let next = newline.map { $0 + 1 } ?? end
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<lineEnd])
            let content: Line.Content
            if LogReader.isBlank(text) {
                content = .blank
            } else if text.count > LogReader.maximumLineLength {
                content = .tooLong(text.count)
            } else {
                do {
                    content = .decoded(try decoder.decodeLine(text, lineNumber: 0))
                } catch {
                    content = .failure(error.reason)
                }
            }
            let line = Line(start: start, next: next, endsWithNewline: newline != nil, content: content)
            lines.append(line)
            if line.stopsReading { break }
            start = next
        }
        return lines
    }
}

extension LogPieces.Line {
    /// Whether reading ends at this line (a bad line, or a torn one).
    var stopsReading: Bool {
        switch content {
        case .blank, .decoded: false
        case .tooLong, .failure: true
        }
    }
}

/// The number of processors available to the process.
package enum ProcessInfoCount {
    package static let active: Int = {
        let count = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return count > 0 ? Int(count) : 1
    }()
}
