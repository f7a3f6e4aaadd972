/// A named timeline that holds events, such as "Home" or "Work".
package struct Timeline: Hashable, Sendable {
    /// The timeline's identifier.
    package var id: TimelineID
    /// The timeline's display name, exactly as recorded.
    package var name: String

    /// Creates a timeline.
    package init(id: TimelineID, name: String) {
        self.id = id
        self.name = name
    }
}
