/// How a compensating batch says which batch it undoes: its command id (`cmd`) is
/// `undo:<N>`, where `N` is the position of the first record of the undone batch.
///
/// The marker is an ordinary command id, so a log holding it is read by every version, and
/// it is idempotent: undoing the same batch twice (a retried `revert`) appends once. A redo
/// is the undo of an undo, `undo:<first position of the undo>`. Only a command id of exactly
/// this form (`undo:` and a decimal position of 1 or more) is a marker; command ids that
/// people choose should not begin with `undo:`.
package enum UndoMarker {
    /// The prefix of every marker.
    package static let prefix = "undo:"

    /// The command id of the batch that undoes the batch starting at `position`.
    package static func commandID(undoing position: Int64) -> String { prefix + String(position) }

    /// The first position of the batch that the batch with this command id undoes, or `nil`
    /// when the command id is not a marker.
    package static func undonePosition(_ commandID: String?) -> Int64? {
        guard let commandID, commandID.hasPrefix(prefix) else { return nil }
        let digits = commandID.utf8.dropFirst(prefix.utf8.count)
        guard let first = digits.first, first != UInt8(ascii: "0"), digits.allSatisfy({ (0x30...0x39).contains($0) }),
              let position = Int64(String(decoding: digits, as: UTF8.self)) else { return nil }
        return position
    }
}
