/// A named timeline that holds events, such as "Home" or "Work".
public struct Timeline: Hashable, Sendable {
    /// The timeline's identifier.
    public var id: TimelineID
    /// The timeline's display name, exactly as recorded.
    public var name: String

    /// Creates a timeline.
    public init(id: TimelineID, name: String) {
        self.id = id
        self.name = name
    }
}
