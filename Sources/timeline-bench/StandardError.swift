import Foundation

/// Progress messages, kept off standard output so that it holds only the tables.
enum StandardError {
    static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
