/// Why a log cannot be replayed: the first record holding a fact that the domain rules
/// refuse in the state before it.
public struct RecordRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The record's position in the log.
    public var position: Int64
    /// The refused fact.
    public var fact: Fact
    /// The rule it breaks.
    public var rejection: Rejection

    /// Creates a refusal of `fact` in the record at `position`.
    public init(position: Int64, fact: Fact, rejection: Rejection) {
        self.position = position
        self.fact = fact
        self.rejection = rejection
    }

    /// `record 12: eventAdded: unknown timeline "work"`.
    public var description: String { "record \(position): \(fact.type.rawValue): \(rejection.description)" }
}
