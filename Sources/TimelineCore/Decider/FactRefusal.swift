/// A fact in a sequence of facts that the domain rules refuse: where it stands in the
/// sequence, which fact it is, and the rule it breaks.
public struct FactRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The refused fact's index in the sequence that was checked, counting from 0.
    public var index: Int
    /// The refused fact.
    public var fact: Fact
    /// The rule the fact breaks in the state before it.
    public var rejection: Rejection

    /// Creates a refusal of the fact at `index`.
    public init(index: Int, fact: Fact, rejection: Rejection) {
        self.index = index
        self.fact = fact
        self.rejection = rejection
    }

    /// A message naming the fact's index, its type and the rule: `fact at index 2: rangeClosed: event "e1" is not an open range`.
    public var description: String { "fact at index \(index): \(fact.type.rawValue): \(rejection)" }
}
