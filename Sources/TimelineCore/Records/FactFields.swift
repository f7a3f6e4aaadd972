/// The `data` object of a record being read, with typed access to its fields and
/// errors that name the fact type and the field.
///
/// A field the reader asks for must appear once; fields it does not ask for are ignored.
struct FactFields: FactFieldSource {
    /// The record's type, for messages.
    var type: FactType
    /// The members of `data`, in the order written.
    var members: [JSONMember]

    /// The field's value, or `nil` when it is absent.
    func value(_ name: String) throws(RecordError.Reason) -> JSONValue? {
        var found: JSONValue?
        for member in members where member.key == name {
            if found != nil { throw .duplicateField(type, field: name) }
            found = member.value
        }
        return found
    }

    /// Whether the field is present.
    func contains(_ name: String) -> Bool {
        members.contains { $0.key == name }
    }

    /// A required string field.
    func string(_ name: String) throws(RecordError.Reason) -> String {
        switch try value(name) {
        case .string(let text): return text
        case nil: throw .missingField(type, field: name)
        case let other?: throw .wrongFieldType(type, field: name, expected: "a string", found: other.foundDescription)
        }
    }

    /// A required date field.
    func date(_ name: String) throws(RecordError.Reason) -> DateValue {
        switch try value(name) {
        case .string(let text): return try FactFields.parseDate(text, field: name, of: type)
        case nil: throw .missingField(type, field: name)
        case let other?:
            throw .wrongFieldType(type, field: name, expected: "a date string", found: other.foundDescription)
        }
    }

    /// An optional date field: absent or `null` give `nil`.
    func optionalDate(_ name: String) throws(RecordError.Reason) -> DateValue? {
        switch try value(name) {
        case .string(let text): return try FactFields.parseDate(text, field: name, of: type)
        case nil, .null?: return nil
        case let other?:
            throw .wrongFieldType(type, field: name, expected: "a date string or null", found: other.foundDescription)
        }
    }

    /// Parses a date value, with the date's own message on failure, after where it is
    /// (`place`, such as `member "at"`).
    static func parseDate(_ text: String, place: @autoclosure () -> String) throws(RecordError.Reason) -> DateValue {
        do { return try DateValue(parsing: text) } catch { throw .invalidDate(error, place: place()) }
    }

    /// Parses the date of the field `name` of a fact of `type`.
    static func parseDate(_ text: String, field name: String, of type: FactType) throws(RecordError.Reason) -> DateValue {
        try parseDate(text, place: "\(type.rawValue): field \(JSONStringWriter.quoted(name))")
    }
}

extension JSONValue {
    /// What a value that has the wrong type is, for messages: a number's own text
    /// (`-1`, `1.5`), otherwise its kind (`null`, `a string`, …).
    var foundDescription: String {
        if case .number(let number) = self { return number.text }
        return kindDescription
    }
}
