// A sketch of a SwiftUI list on a live view (Apple platforms only).
//
// `TimelineViewModel` is `@Observable`: it starts from the store's current rows and swaps
// in each change set's rows (an O(1) structurally shared snapshot) on the main actor, so
// `ForEach` redraws exactly what changed. No fetched-results controller, no polling, and
// ongoing rows sort at "now" because the store's clock moves them.
import TimelineKit

#if canImport(SwiftUI)
import SwiftUI

/// The main screen: every date row by year, sorted, with ongoing rows at now.
struct TimelineListSketch: View {
    let store: TimelineStore
    /// `nil` until the model has subscribed (it has the rows from then on).
    @State private var model: TimelineViewModel?

    var body: some View {
        List {
            if let model {
                ForEach(sectionsWithRows(model)) { entry in
                    Section(entry.section.title) {
                        ForEach(entry.rows) { row in
                            HStack {
                                Text(row.date?.text ?? "now").monospacedDigit().foregroundStyle(.secondary)
                                Text(row.title)
                                Spacer()
                                Text(row.kind.rawValue).font(.caption)
                            }
                        }
                    }
                }
            }
        }
        // The model lives as long as the list is shown: leaving it ends the subscription,
        // and the store stops keeping the view up to date.
        .task {
            model = await TimelineViewModel(store: store, view: sketchView)
        }
        .onDisappear {
            model?.stop()
            model = nil
        }
    }

    /// Each section with its rows, cut from the model's list by the sections' counts.
    private func sectionsWithRows(_ model: TimelineViewModel) -> [SectionRows] {
        var start = 0
        return model.sections.map { section in
            defer { start += section.count }
            return SectionRows(section: section, rows: Array(model.rows[start..<(start + section.count)]))
        }
    }
}

/// A section and its rows, identified by the section's id (not its title).
private struct SectionRows: Identifiable {
    let section: RowSection
    let rows: [Row]
    var id: RowSection.ID { section.id }
}
#endif

/// The view the sketch shows, usable on every platform.
public let sketchView = ViewDefinition(sections: .year)
