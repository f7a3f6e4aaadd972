/// The identity of a replica: a UUID version 7 in lowercase text, made when the replica is
/// created and never reused (section 10 of the design).
///
/// Submission `n` of device `D` has the command id `D:n` in the shared log.
public struct DeviceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The id's text: 36 characters, lowercase hexadecimal digits and hyphens.
    public let rawValue: String

    /// The id in `text`, or `nil` unless it is a lowercase UUID of version 7 and the RFC 9562 variant.
    public init?(_ text: String) {
        guard Self.isVersion7(text) else { return nil }
        rawValue = text
    }

    /// A new id for a replica made at `now`: 48 bits of milliseconds, then random bits.
    package static func make(at now: Instant, using random: inout some RandomNumberGenerator) -> DeviceID {
        let milliseconds = UInt64(max(0, now.microsecondsSinceEpoch / 1000)) & 0xFFFF_FFFF_FFFF
        var bytes = [UInt8](repeating: 0, count: 16)
        for k in 0..<6 { bytes[k] = UInt8(truncatingIfNeeded: milliseconds >> UInt64(8 * (5 - k))) }
        for k in 6..<16 { bytes[k] = UInt8.random(in: 0...255, using: &random) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // variant 10
        let hex = bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
        let text = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
                    hex.dropFirst(20)].joined(separator: "-")
        return DeviceID(text)!
    }

    /// Whether `text` is `xxxxxxxx-xxxx-7xxx-[89ab]xxx-xxxxxxxxxxxx` in lowercase hexadecimal.
    static func isVersion7(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 8, 13, 18, 23: guard byte == 0x2D else { return false }
            default: guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return bytes[14] == 0x37 && [0x38, 0x39, 0x61, 0x62].contains(bytes[19])
    }

    /// Orders ids by their text (which orders them by the time they were made).
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The id's text.
    public var description: String { rawValue }
}

/// The command id of a device's submission in the shared log: `D:n`.
public struct SubmissionID: Hashable, Sendable, CustomStringConvertible {
    /// The device that sent it.
    public var device: DeviceID
    /// Its number among the device's submissions: 1, 2, 3, … with no gaps.
    public var number: Int64

    /// The submission `number` of `device`.
    public init(device: DeviceID, number: Int64) {
        self.device = device
        self.number = number
    }

    /// The id in a command id `D:n`, or `nil` when the text is not one (a command id an app chose).
    public init?(commandID: String) {
        guard let colon = commandID.utf8.firstIndex(of: 0x3A) else { return nil }
        let deviceText = String(commandID[..<colon])
        let numberText = commandID[commandID.index(after: colon)...]
        guard let device = DeviceID(deviceText), let number = Int64(numberText), number > 0,
              String(number) == numberText else { return nil }
        self.init(device: device, number: number)
    }

    /// `D:n`.
    public var description: String { "\(device.rawValue):\(number)" }
}
