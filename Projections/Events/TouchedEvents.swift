import TimelineCore

/// An event a batch touched: its snapshot before the batch and its last (`nil`: not
/// there), and the first eight bytes of its id (``RowOrder/prefix(_:)``), read once for
/// every row set.
struct TouchedEvent {
    let id: EventID
    var old: EventSnapshot?
    var new: EventSnapshot?
    let idPrefix: UInt64
}

/// The events a batch touched, in the order it first touched them, each once.
struct TouchedEvents {
    private(set) var events: [TouchedEvent] = []
    /// Where each event is in ``events``: kept once there are more than ``linearLimit``
    /// (a command touches one or two; a scan of a few costs less than hashing).
    private var places: [EventID: Int] = [:]

    static let linearLimit = 8

    /// Notes that an event went from `old` to `new`: the first note of an event keeps its
    /// `old`, every later one only moves its `new`.
    /// - Complexity: O(1) amortised.
    mutating func note(old: EventSnapshot?, new: EventSnapshot?) {
        guard let id = (new ?? old)?.id else { return }
        if let place = place(of: id) {
            events[place].new = new
            return
        }
        events.append(TouchedEvent(id: id, old: old, new: new, idPrefix: RowOrder.prefix(id.rawValue)))
        guard events.count > Self.linearLimit else { return }
        if places.isEmpty {
            for (place, event) in events.enumerated() { places[event.id] = place }
        } else {
            places[id] = events.count - 1
        }
    }

    private func place(of id: EventID) -> Int? {
        events.count <= Self.linearLimit ? events.firstIndex { $0.id == id } : places[id]
    }
}
