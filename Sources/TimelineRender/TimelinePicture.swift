import TimelineCore
import TimelineKit
import TimelineProjections

/// Pictures of a view of the timelines: an SVG document, or a self-contained HTML page.
///
/// One lane per timeline of the view, ranges as bars (an open one runs to the projection's
/// "now" and fades there), single dates as marks, a time axis, and the titles beside or on
/// their items, never over each other: a title without room is shortened with "…", and
/// every item keeps its full title and dates as a tooltip. The same projection, view and
/// options always give the same text.
///
/// A view of more than a few thousand events is drawn as counts: a column per timeline
/// and period, with a note that says so, so that the picture stays small.
public enum TimelinePicture {
    /// What to draw and how large.
    public struct Options: Hashable, Sendable {
        /// The kind of document.
        public enum Format: String, Hashable, Sendable, CaseIterable {
            /// An SVG document: the picture alone.
            case svg
            /// An HTML page around the picture: no network, no script needed to see it.
            case html
        }

        /// The kind of document; SVG by default.
        public var format: Format
        /// The picture's width in CSS pixels (at least 320).
        public var width: Int
        /// The first instant the time axis shows; by default a little before the earliest date.
        public var from: Instant?
        /// The last instant the time axis shows; by default a little after the latest date (or now).
        public var to: Instant?

        /// Creates options: SVG, 1200 pixels wide, the axis fitted to the dates.
        public init(format: Format = .svg, width: Int = 1200, from: Instant? = nil, to: Instant? = nil) {
            self.format = format
            self.width = width
            self.from = from
            self.to = to
        }
    }

    /// Draws the rows of `view` in the store as they stand, at the store's "now": lanes,
    /// bars, marks, the axis and the titles, as described below for a projection.
    /// - Complexity: O(*n* log *n*) for the *n* rows of the view.
    public static func render(_ view: ViewDefinition, of store: TimelineStore,
                              options: Options = Options()) async -> String {
        await store.reading { projection in render(view, of: projection, options: options) }
    }

    /// Draws the rows of `view` in `projection` at the projection's "now".
    ///
    /// The view's filter chooses the rows (a view of one timeline is one lane); the lanes
    /// come in the order of their first row in the view; its sections (year, month or
    /// decade), when it has them, put a line at each section's start. Where it places
    /// ongoing rows changes nothing: an open range runs to now. A view the projection does
    /// not maintain is built for the picture.
    /// - Complexity: O(*n* log *n*) for the *n* rows of the view.
    package static func render(_ view: ViewDefinition, of projection: TimelineProjection,
                               options: Options = Options()) -> String {
        let input = PictureInput(view: view, projection: projection)
        let svg = SVGWriter.svg(PictureLayout(input, options: options))
        switch options.format {
        case .svg: return svg
        case .html: return HTMLPage.page(svg: svg, title: input.title)
        }
    }
}
