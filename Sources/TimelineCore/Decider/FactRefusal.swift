/// A fact that the domain rules refuse in the state before it: where it stands, which
/// fact it is, and the rule it breaks.
package struct FactRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where a refused fact stands.
    package enum Place: Hashable, Sendable, CustomStringConvertible {
        /// Its index in the sequence of facts that was checked, counting from 0.
        case index(Int)
        /// The position of its record in a log.
        case record(Int64)

        /// `fact at index 2`, `record 12`: as a message names it.
        package var description: String {
            switch self {
            case .index(let index): "fact at index \(index)"
            case .record(let position): "record \(position)"
            }
        }
    }

    /// Where the refused fact stands.
    package var place: Place
    /// The refused fact.
    package var fact: Fact
    /// The rule the fact breaks in the state before it.
    package var rejection: Rejection

    /// Creates a refusal of the fact at `index` in a sequence of facts.
    package init(index: Int, fact: Fact, rejection: Rejection) {
        self.init(place: .index(index), fact: fact, rejection: rejection)
    }

    /// Creates a refusal of `fact` in the record at `position` in a log.
    package init(position: Int64, fact: Fact, rejection: Rejection) {
        self.init(place: .record(position), fact: fact, rejection: rejection)
    }

    /// Creates a refusal of the fact at `place`.
    package init(place: Place, fact: Fact, rejection: Rejection) {
        self.place = place
        self.fact = fact
        self.rejection = rejection
    }

    /// A message naming where the fact stands, its type and the rule:
    /// `fact at index 2: rangeClosed: event "e1" is not an open range`, or
    /// `record 12: eventAdded: unknown timeline "work"`.
    package var description: String {
        "\(place): \(fact.type.rawValue): \(rejection)"
    }
}
