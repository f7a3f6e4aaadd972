import SystemShim

/// Text for C library error numbers.
enum SystemError {
    static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
