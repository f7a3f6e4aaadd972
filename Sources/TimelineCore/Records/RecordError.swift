/// Why a line of the log is not a record: the line number and the rule it breaks.
///
/// The description names both: `line 12: eventAdded: field "date": date "2019-13": month must be 01–12`,
/// `line 3: unknown type "eventAdd"`, `line 5: eventAdded: missing field "title"`,
/// `line 7: checksum mismatch`.
package struct RecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule a line breaks.
    ///
    /// A reason is also an `Error`: the reader throws it before it knows the line number.
    package enum Reason: Error, Hashable, Sendable, CustomStringConvertible {
        /// The bytes are not well-formed UTF-8; `column` is the 1-based byte column of
        /// the first bad byte.
        case invalidUTF8(column: Int)
        /// The text is not one JSON value: the rule it breaks and the 1-based byte column.
        case invalidJSON(String, column: Int)
        /// The JSON value is not an object.
        case notAnObject
        /// The line's `crc` is not the CRC-32C of the bytes before `,"crc"`, or the
        /// line ends with what must be a `crc` member whose name a flipped bit damaged
        /// (a last member named one bit away from `crc` holding 8 lowercase hex digits).
        case checksumMismatch
        /// `crc` is not a string of 8 lowercase hexadecimal digits written plainly.
        case malformedChecksum
        /// `crc` is not the last member of the line (or the only one).
        case checksumNotLast
        /// A required top-level member (`type`, `data`) is absent.
        case missingMember(String)
        /// A top-level member the reader knows appears twice.
        case duplicateMember(String)
        /// A top-level member has the wrong kind of value: the member, what it must be,
        /// what it is.
        case wrongMemberType(String, expected: String, found: String)
        /// `v` is newer than ``Record/currentVersion``.
        case unsupportedVersion(Int64)
        /// `type` names no fact.
        case unknownType(String)
        /// A field the fact's `data` needs is absent.
        case missingField(FactType, field: String)
        /// A field of the fact's `data` appears twice.
        case duplicateField(FactType, field: String)
        /// A field of the fact's `data` has the wrong kind of value.
        case wrongFieldType(FactType, field: String, expected: String, found: String)
        /// A date is not a valid date value: where it is (`member "at"`, or a fact's field
        /// such as `eventAdded: field "start"`), and why.
        case invalidDate(DateValueError, place: String)
        /// `seq` is not the position the reader expected next.
        case unexpectedPosition(Int64, expected: Int64)
        /// `undo` names a position that is not before the record's own: an undo undoes an
        /// earlier batch.
        case undoNotBefore(Int64, position: Int64)

        /// The rule, such as `eventAdded: missing field "title"`.
        package var description: String {
            switch self {
            case .invalidUTF8:
                "invalid UTF-8"
            case .invalidJSON(let reason, let column):
                "not valid JSON: \(reason) at column \(column)"
            case .notAnObject:
                "a record must be a JSON object"
            case .checksumMismatch:
                "checksum mismatch"
            case .malformedChecksum:
                #"member "crc" must be written plainly, as "crc":"xxxxxxxx" with 8 lowercase hexadecimal digits"#
            case .checksumNotLast:
                "member \"crc\" must be the last member, after at least one other"
            case .missingMember(let name):
                "missing member \(JSONStringWriter.quoted(name))"
            case .duplicateMember(let name):
                "duplicate member \(JSONStringWriter.quoted(name))"
            case .wrongMemberType(let name, let expected, let found):
                "member \(JSONStringWriter.quoted(name)) must be \(expected), not \(found)"
            case .unsupportedVersion(let version):
                "unsupported schema version \(version)"
            case .unknownType(let type):
                "unknown type \(JSONStringWriter.quoted(type))"
            case .missingField(let type, let field):
                "\(type.rawValue): missing field \(JSONStringWriter.quoted(field))"
            case .duplicateField(let type, let field):
                "\(type.rawValue): duplicate field \(JSONStringWriter.quoted(field))"
            case .wrongFieldType(let type, let field, let expected, let found):
                "\(type.rawValue): field \(JSONStringWriter.quoted(field)) must be \(expected), not \(found)"
            case .invalidDate(let error, let place):
                "\(place): \(error)"
            case .unexpectedPosition(let seq, let expected):
                "seq \(seq) is out of order: expected \(expected) (positions run 1, 2, 3, … with no gaps)"
            case .undoNotBefore(let undone, let position):
                "member \"undo\" names record \(undone), which is not before this record (\(position)): an undo undoes an earlier batch"
            }
        }
    }

    /// The 1-based number of the line in the log.
    package var line: Int
    /// The rule the line breaks.
    package var reason: Reason

    /// Creates an error for line `line` breaking `reason`.
    package init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    /// `line 7: checksum mismatch`.
    package var description: String { "line \(line): \(reason)" }
}
