// A sketch of a SwiftUI list on a live view (Apple platforms only).
//
// `TimelineViewModel` is `@Observable`: it follows the store and swaps in each change
// set's rows (an O(1) structurally shared snapshot) on the main actor, so `ForEach`
// redraws exactly what changed. No fetched-results controller, no polling, and ongoing
// rows sort at "now" because the store's clock moves them.
import TimelineKit

#if canImport(SwiftUI)
import SwiftUI

/// The main screen: every date row, sorted, with ongoing rows at now.
struct TimelineListSketch: View {
    @State private var model: TimelineViewModel

    init(store: TimelineStore) {
        _model = State(initialValue: TimelineViewModel(store: store, view: ViewDefinition(sections: .year)))
    }

    var body: some View {
        List {
            ForEach(model.rows) { row in
                HStack {
                    Text(row.date?.text ?? "now").monospacedDigit().foregroundStyle(.secondary)
                    Text(row.title)
                    Spacer()
                    Text(row.kind.rawValue).font(.caption)
                }
            }
        }
        .onDisappear { model.stop() }
    }
}
#endif

/// The view the sketch shows, usable on every platform (the terminal example uses it too).
public let sketchView = ViewDefinition(sections: .year)
