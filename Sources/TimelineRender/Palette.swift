/// The picture's colours, light and dark, chosen for contrast: a title on a bar (white on
/// a light scheme's colour, near-black on a dark one's) has at least 4.5:1, a bar or
/// mark against the background at least 4.5:1, text against the background at least 5:1.
enum Palette {
    /// A colour per timeline, for a light background.
    static let light = ["#2b67c6", "#0f7a73", "#b8520f", "#7a4fc2", "#c23a5b", "#3b7d23", "#8a6212", "#4f6b8a"]
    /// The same hues for a dark background.
    static let dark = ["#79a8f2", "#4fc2b6", "#f2a15c", "#b99bf0", "#f08aa3", "#8fce6f", "#e0b656", "#9db3cc"]

    static func index(_ colour: Int) -> Int { ((colour % light.count) + light.count) % light.count }

    struct Scheme {
        var background: String
        var text: String
        var muted: String
        var grid: String
        var minorGrid: String
        var separator: String
        var now: String
        /// Text on a bar.
        var onBar: String
        /// The outline around a mark, to set it off from a bar behind it.
        var markOutline: String
        var lanes: [String]
    }

    static let lightScheme = Scheme(
        background: "#fbfbfa", text: "#1f2328", muted: "#656d76", grid: "#dcdcd8", minorGrid: "#eeeeeb",
        separator: "#e4e4e0", now: "#cf222e", onBar: "#ffffff", markOutline: "#fbfbfa", lanes: light)

    static let darkScheme = Scheme(
        background: "#15181e", text: "#e6edf3", muted: "#9198a1", grid: "#363b44", minorGrid: "#22262d",
        separator: "#2a2f37", now: "#ff7b72", onBar: "#0e1116", markOutline: "#15181e", lanes: dark)
}
