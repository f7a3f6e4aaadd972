/// Formats instants as UTC text.
enum InstantFormatter {
    /// `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
    static func iso8601(_ instant: Instant) -> String {
        "\(instant.microsecondsSinceEpoch)"
    }
}
