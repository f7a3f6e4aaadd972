import Foundation
import TimelineTestSupport

/// Headless Chromium, run as a program: screenshots and DOM dumps of local pages.
///
/// Found at `$CHROMIUM`, else as Debian's `chromium-headless-shell` or `chromium`. Each
/// run has a profile directory of its own and a fixed window size and scale factor;
/// `--no-sandbox` because test machines often run as root, where the sandbox refuses to start.
struct Chromium {
    let executable: String

    /// The browser on this machine, if there is one.
    static let found: Chromium? = {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["CHROMIUM"], !path.isEmpty { candidates.append(path) }
        candidates += ["/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell",
                       "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map(Chromium.init)
    }()

    static let missing = "no headless Chromium found (install Debian's chromium-headless-shell, "
        + "or set CHROMIUM to a Chromium or Chrome executable)"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Takes a screenshot of `page` in a window of `width` × `height` CSS pixels at scale 1.
    func screenshot(of page: URL, width: Int, height: Int, dark: Bool = false, to png: URL) throws {
        var arguments = ["--screenshot=\(png.path)", "--window-size=\(width),\(height)"]
        if dark { arguments.append("--blink-settings=preferredColorScheme=0") }
        _ = try run(arguments + [page.absoluteString])
        guard FileManager.default.fileExists(atPath: png.path) else {
            throw Failure(description: "Chromium wrote no screenshot of \(page.lastPathComponent)")
        }
    }

    /// The page's DOM once it has loaded and its scripts have run, as HTML.
    func dumpDOM(of page: URL, width: Int = 1280, height: Int = 1024) throws -> String {
        try run(["--dump-dom", "--window-size=\(width),\(height)", page.absoluteString])
    }

    /// Runs the browser with `arguments` and returns its standard output. A browser that
    /// hangs is killed after `timeout`, so that the test fails instead of waiting forever.
    private func run(_ arguments: [String], timeout: Duration = .seconds(120)) throws -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try SpawnedProcess.run(URL(fileURLWithPath: executable), [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--force-device-scale-factor=1", "--user-data-dir=\(scratch.appendingPathComponent("profile").path)",
        ] + arguments, timeout: timeout)
        guard result.status == 0 else {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) exited with status "
                          + "\(result.status):\n\(result.errors.suffix(2_000))")
        }
        return result.output
    }
}

/// The value of `data-NAME="…"` on the first element of dumped HTML that has it.
func dataAttribute(_ name: String, in html: String) -> String? {
    guard let start = html.range(of: "data-\(name)=\"") else { return nil }
    guard let end = html[start.upperBound...].firstIndex(of: "\"") else { return nil }
    return String(html[start.upperBound..<end])
}
