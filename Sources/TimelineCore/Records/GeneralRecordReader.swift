/// The record reader's general path: any valid JSON object, members in any order,
/// any whitespace, any escapes, unknown members ignored.
///
/// The line is parsed by ``JSONParser``; then, in this order: the checksum is checked
/// (if the line has one), the known top-level members are checked for their types, the
/// version is checked, `type` and `data` are required, and the data is read as facts
/// (through the ``Upcaster`` for older versions).
enum GeneralRecordReader {
    /// Reads one line.
    static func read(_ line: UnsafeRawBufferPointer) throws(RecordError.Reason) -> DecodedLine {
        let root: JSONValue
        do {
            root = try JSONParser.parse(line)
        } catch {
            switch error.kind {
            case .invalidUTF8: throw .invalidUTF8(column: error.column)
            case .syntax: throw .invalidJSON(error.reason, column: error.column)
            }
        }
        guard case .object(let members) = root else { throw .notAnObject }
        try verifyChecksum(members, line: line)

        var seqValue, typeValue, dataValue, atValue, versionValue, commandValue, moreValue, subValue, undoValue: JSONValue?
        for member in members {
            switch member.key {
            case "seq": try setOnce(&seqValue, member)
            case "type": try setOnce(&typeValue, member)
            case "data": try setOnce(&dataValue, member)
            case "at": try setOnce(&atValue, member)
            case "v": try setOnce(&versionValue, member)
            case "cmd": try setOnce(&commandValue, member)
            case "more": try setOnce(&moreValue, member)
            case "sub": try setOnce(&subValue, member)
            case "undo": try setOnce(&undoValue, member)
            default: continue // unknown members are ignored; "crc" was checked above
            }
        }

        let version = try versionValue.map { value throws(RecordError.Reason) in try nonNegativeInteger("v", value) }
            ?? Int64(Record.currentVersion)
        guard version <= Record.currentVersion else { throw .unsupportedVersion(version) }
        let seq = try seqValue.map { value throws(RecordError.Reason) in try nonNegativeInteger("seq", value) }
        let more = try moreValue.map { value throws(RecordError.Reason) in try nonNegativeInteger("more", value) }
        let commandID = try commandValue.map { value throws(RecordError.Reason) in try string("cmd", value) }
        let submission = try subValue.map { value throws(RecordError.Reason) in try string("sub", value) }
        let undoes = try undoValue.map { value throws(RecordError.Reason) in
            guard case .number(let number) = value, let position = number.nonNegativeInteger, position >= 1 else {
                throw .wrongMemberType("undo", expected: "the position of a record, 1 or more", found: value.foundDescription)
            }
            return position
        }
        let recordedAt = try atValue.map { value throws(RecordError.Reason) in
            try FactFields.parseDate(try string("at", value, expected: "a date string"), place: #"member "at""#)
        }
        guard let typeValue else { throw .missingMember("type") }
        let type = try string("type", typeValue)
        guard let dataValue else { throw .missingMember("data") }
        guard case .object(let data) = dataValue else {
            throw .wrongMemberType("data", expected: "an object", found: dataValue.foundDescription)
        }
        guard let factType = FactType(rawValue: type) else { throw .unknownType(type) }
        let fields = FactFields(type: factType, members: data)
        let facts: [Fact]
        if version < Record.currentVersion, let upcast = try Upcaster.facts(fields, version: version) {
            facts = upcast
        } else {
            facts = [try FactReader.fact(factType, fields)]
        }
        guard let batchRemainder = Int(exactly: more ?? 0) else {
            throw .wrongMemberType("more", expected: "a non-negative integer", found: "\(more!)")
        }
        return DecodedLine(seq: seq, facts: facts, recordedAt: recordedAt, commandID: commandID,
                           batchRemainder: batchRemainder, submission: submission, undoes: undoes)
    }

    @inline(__always)
    private static func setOnce(_ slot: inout JSONValue?, _ member: JSONMember) throws(RecordError.Reason) {
        guard slot == nil else { throw .duplicateMember(member.key) }
        slot = member.value
    }

    private static func string(
        _ name: String, _ value: JSONValue, expected: String = "a string"
    ) throws(RecordError.Reason) -> String {
        guard case .string(let text) = value else {
            throw .wrongMemberType(name, expected: expected, found: value.foundDescription)
        }
        return text
    }

    private static func nonNegativeInteger(_ name: String, _ value: JSONValue) throws(RecordError.Reason) -> Int64 {
        guard case .number(let number) = value, let integer = number.nonNegativeInteger else {
            throw .wrongMemberType(name, expected: "a non-negative integer", found: value.foundDescription)
        }
        return integer
    }

    // MARK: - Checksum

    /// Checks the line's `crc`, if it has one, against the bytes before the comma that
    /// precedes it.
    ///
    /// `crc` must be the last member, written plainly (`"crc":"xxxxxxxx"`, 8 lowercase
    /// hexadecimal digits, whitespace allowed around the colon and the comma). A line
    /// without `crc` whose last member looks exactly like one but for a name one bit away
    /// (`"crb":"1a2b3c4d"`, `"cRc":…`) has a damaged checksum: so no single flipped bit
    /// turns a checked line into an unchecked one, while ordinary unknown members (even
    /// one named `src`) are still ignored.
    static func verifyChecksum(_ members: [JSONMember], line: UnsafeRawBufferPointer) throws(RecordError.Reason) {
        var crcIndex: Int?
        for (index, member) in members.enumerated() where member.key == "crc" {
            guard crcIndex == nil else { throw .duplicateMember("crc") }
            crcIndex = index
        }
        guard let crcIndex else {
            if let last = members.last, isOneBitFromCRC(last.key), case .string(let text) = last.value,
               lowercaseHex8(Array(text.utf8)) != nil {
                throw .checksumMismatch
            }
            return
        }
        guard crcIndex == members.count - 1, crcIndex > 0 else { throw .checksumNotLast }
        guard case .string(let text) = members[crcIndex].value, let stored = lowercaseHex8(Array(text.utf8)) else {
            throw .malformedChecksum
        }
        guard let covered = checksummedLength(line) else { throw .malformedChecksum }
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: line[..<covered]))
        guard computed == stored else { throw .checksumMismatch }
    }

    /// Whether `name` is `crc` with exactly one bit flipped.
    private static func isOneBitFromCRC(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 3 else { return false }
        let crc: [UInt8] = [0x63, 0x72, 0x63]
        var bits = 0
        for k in 0..<3 { bits += (bytes[k] ^ crc[k]).nonzeroBitCount }
        return bits == 1
    }

    /// The value of 8 lowercase hexadecimal digits.
    static func lowercaseHex8<C: Collection<UInt8>>(_ digits: C) -> UInt32? {
        guard digits.count == 8 else { return nil }
        var value: UInt32 = 0
        for c in digits {
            switch c {
            case 0x30...0x39: value = value << 4 | UInt32(c - 0x30)
            case 0x61...0x66: value = value << 4 | UInt32(c - 0x61 + 10)
            default: return nil
            }
        }
        return value
    }

    /// The offset of the comma before the plainly written last member `"crc":"xxxxxxxx"`,
    /// found from the end of a line that parsed as an object whose last member is `crc`.
    private static func checksummedLength(_ line: UnsafeRawBufferPointer) -> Int? {
        var j = line.count - 1
        func skipWhitespace() {
            while j >= 0, line[j] == 0x20 || line[j] == 0x09 || line[j] == 0x0A || line[j] == 0x0D { j -= 1 }
        }
        func expect(_ bytes: StaticString) -> Bool {
            let count = bytes.utf8CodeUnitCount
            guard j - count + 1 >= 0 else { return false }
            for k in 0..<count where line[j - count + 1 + k] != bytes.utf8Start[k] { return false }
            j -= count
            return true
        }
        skipWhitespace()
        guard expect("}") else { return nil }
        skipWhitespace()
        guard expect("\""), j >= 8, lowercaseHex8(line[(j - 7)...j]) != nil else { return nil }
        j -= 8
        guard expect("\"") else { return nil }
        skipWhitespace()
        guard expect(":") else { return nil }
        skipWhitespace()
        guard expect("\"crc\"") else { return nil }
        skipWhitespace()
        guard expect(",") else { return nil }
        return j + 1
    }
}
