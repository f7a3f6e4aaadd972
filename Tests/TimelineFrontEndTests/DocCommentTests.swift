import Foundation
import Testing

/// The doc comments of the public API name only public API: a symbol a front end cannot
/// call (declared `package`, `internal` or `private`, and public nowhere) is named in no
/// doc comment of a public declaration of TimelineCore, TimelineProjections or TimelineKit,
/// as a link (``` ``name`` ```) or as code (`` `name` ``), unless it is one of the
/// declaration's own parameters.
@Suite("Doc comments")
struct DocCommentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let folders = ["Sources/TimelineCore", "Projections", "Sources/TimelineKit"]

    static func sources() throws -> [(name: String, lines: [Substring])] {
        var found: [(String, [Substring])] = []
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            let names = try FileManager.default.subpathsOfDirectory(atPath: base.path).filter { $0.hasSuffix(".swift") }
            for name in names.sorted() {
                let text = try String(contentsOf: base.appendingPathComponent(name), encoding: .utf8)
                found.append((folder + "/" + name, text.split(separator: "\n", omittingEmptySubsequences: false)))
            }
        }
        return found
    }

    @Test func publicDocsNameOnlyPublicAPI() throws {
        let sources = try Self.sources()
        #expect(sources.count > 50, "the sources are found")
        let attributes = #"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*"#
        let modifiers = #"(?:(?:static|nonisolated|final|mutating|override|lazy|indirect|convenience|required)\s+)*"#
        let kinds = #"(?:func|var|let|struct|enum|class|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"#
        let isPublic = try Regex(attributes + #"(?:public|open)(?:\(set\))?\s"#)
        let publicName = try Regex(attributes + #"(?:public|open)(?:\([a-z]+\))?\s+"# + modifiers + kinds)
        let hiddenName = try Regex(attributes + #"(?:package|internal|private|fileprivate)(?:\(set\))?\s+"# + modifiers + kinds)
        let caseNames = try Regex(#"^\s*case\s+([A-Za-z_][A-Za-z0-9_, ]*)"#)
        // Words in code voice that are text, not symbols: a record's `data` field, `e<n>`.
        var visible: Set<String> = ["data", "n"], hidden = Set<String>()
        for (_, lines) in sources {
            for line in lines {
                // An enum's cases are as visible as the enum (the few internal enums' cases too: lenient).
                if let match = line.firstMatch(of: caseNames), let names = match.output[1].substring {
                    for name in names.split(separator: ",") {
                        visible.insert(String(name.trimmingCharacters(in: .whitespaces).prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
                    }
                }
                if let match = line.firstMatch(of: publicName), let name = match.output[1].substring { visible.insert(String(name)) }
                if let match = line.firstMatch(of: hiddenName), let name = match.output[1].substring { hidden.insert(String(name)) }
            }
        }
        hidden.subtract(visible)
        let named = try Regex(#"``?([A-Za-z_][A-Za-z0-9_./]*)(?:\([A-Za-z_:]*\))?``?"#)
        var problems: [String] = []
        for (file, lines) in sources {
            for (number, line) in lines.enumerated() where line.firstMatch(of: isPublic) != nil {
                var doc: [Substring] = []
                var above = number - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                    doc.append(lines[above])
                    above -= 1
                }
                // The declaration's own parameters may be named.
                // (A few lines: a declaration's parameters may go on after its first.)
                let declaration = lines[number..<min(lines.count, number + 4)].joined(separator: " ")
                let parameters = Set(declaration.matches(of: try Regex(#"([A-Za-z_][A-Za-z0-9_]*)\s*:"#)).compactMap {
                    $0.output[1].substring.map(String.init)
                })
                for match in doc.joined(separator: " ").matches(of: named) {
                    guard let path = match.output[1].substring else { continue }
                    let name = String(path.split(separator: "/").last?.split(separator: ".").last ?? "")
                    if hidden.contains(name) && !parameters.contains(name) {
                        problems.append("\(file):\(number + 1): the doc names `\(name)`, which is not public")
                    }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
