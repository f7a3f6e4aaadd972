import Foundation

/// Finds an executable of this package that `swift test` built next to the tests.
///
/// Looked for beside the test bundle (Linux runs it as an executable in the build
/// directory; an Xcode-style `.xctest` bundle sits in it), beside the running executable,
/// and under the package's `.build` directory.
/// - Parameters:
///   - name: The executable's name, such as `timeline`.
///   - packageRoot: The package's root directory (a test finds it from `#filePath`).
public func builtExecutable(named name: String, packageRoot: URL) -> URL? {
    var candidates: [URL] = []
    let bundle = Bundle.main.bundleURL
    candidates.append(bundle.appendingPathComponent(name))
    candidates.append(bundle.deletingLastPathComponent().appendingPathComponent(name))
    if let executable = Bundle.main.executableURL {
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name))
    }
    if let first = CommandLine.arguments.first {
        candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent().appendingPathComponent(name))
    }
    for configuration in ["debug", "release"] {
        candidates.append(packageRoot.appendingPathComponent(".build/\(configuration)/\(name)"))
    }
    return candidates.first { url in
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: url.path)
    }
}
