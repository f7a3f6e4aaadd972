// A sketch of a SwiftUI list on a live view (Apple platforms only), and its preview built
// from values.
//
// `TimelineViewModel` is `@Observable`: it starts from the store's current rows and swaps
// in each change set's rows (an O(1) structurally shared snapshot) on the main actor, so
// `ForEach` redraws exactly what changed. No fetched-results controller, no polling, and
// ongoing rows sort at "now" because the store's clock moves them. The list itself is
// drawn from values (rows and sections), so a preview needs no store: the same rows a
// store would show come from `ViewSnapshot(view:after:now:)`.
import TimelineKit

#if canImport(SwiftUI)
import SwiftUI

/// The main screen: every date row of `view` (by year, by default), with ongoing rows at now.
struct TimelineListSketch: View {
    let store: TimelineStore
    var view = sketchView
    /// `nil` until the model has subscribed (it has the rows from then on).
    @State private var model: TimelineViewModel?
    /// Sends of this screen go through it, so that ⌘Z undoes them (`StoreUndo`).
    @State private var undo: StoreUndo?
    @Environment(\.undoManager) private var undoManager

    var body: some View {
        Group {
            if let model {
                TimelineRowsList(view: model.view, rows: model.rows, sections: model.sections)
            } else {
                ProgressView()
            }
        }
        // The model lives as long as the list is shown: leaving it ends the subscription,
        // and the store stops keeping the view up to date.
        .task {
            // A subscription, then the model made synchronously on the main actor.
            let subscription = await store.subscribe(view)
            model = TimelineViewModel(subscription: subscription)
            let sends = StoreUndo(store: store)
            sends.undoManager = undoManager
            undo = sends
        }
        .onChange(of: undoManager) { _, manager in undo?.undoManager = manager }
        .onDisappear {
            model?.stop()
            model = nil
        }
    }
}

/// The store's undo and redo behind SwiftUI's `UndoManager`: ⌘Z, shake to undo and the Edit
/// menu's "Undo Retitle \"Born\"" undo the store's own sends, as ordinary batches that other
/// windows, processes and devices see.
///
/// `UndoManager` takes what is registered while it undoes as the redo, and the reverse, so
/// each handler registers the opposite step first, at once, and then asks the store (an
/// actor) to undo or redo. When the store refuses (a later change touched the same events:
/// `StoreError.undoRefused`), the undo manager's steps are dropped, never left pointing at
/// a change that cannot be taken back.
@MainActor
final class StoreUndo {
    let store: TimelineStore
    /// The undo manager of the window that sends (SwiftUI's `@Environment(\.undoManager)`).
    weak var undoManager: UndoManager?

    init(store: TimelineStore) { self.store = store }

    /// Sends `command` and makes it undoable under the store's name for it.
    func send(_ command: Command) async throws {
        try await store.send(command)
        if let name = await store.undoActionName { register(.undo, named: name) }
    }

    private enum Step { case undo, redo }

    private func register(_ step: Step, named name: String) {
        guard let undoManager else { return }
        undoManager.registerUndo(withTarget: self) { target in
            target.register(step == .undo ? .redo : .undo, named: name)
            target.perform(step)
        }
        undoManager.setActionName(name)
    }

    private func perform(_ step: Step) {
        let store = store
        Task {
            do {
                switch step {
                case .undo: try await store.undo()
                case .redo: try await store.redo()
                }
            } catch {
                undoManager?.removeAllActions(withTarget: self)
            }
        }
    }
}

/// A list of rows, in sections or not, drawn from values.
struct TimelineRowsList: View {
    let view: ViewDefinition
    let rows: RowList
    let sections: SectionList

    var body: some View {
        List {
            if view.sections == .none {
                ForEach(rows) { row in RowLine(row: row) }
            } else {
                ForEach(sectionsWithRows()) { entry in
                    Section(entry.section.title) {
                        ForEach(entry.rows) { row in RowLine(row: row) }
                    }
                }
            }
        }
    }

    /// Each section with its rows, cut from the list by the sections' counts.
    private func sectionsWithRows() -> [SectionRows] {
        var start = 0
        return sections.map { section in
            defer { start += section.count }
            return SectionRows(section: section, rows: Array(rows[start..<(start + section.count)]))
        }
    }
}

/// One row: its date (or "now"), title and kind.
private struct RowLine: View {
    let row: Row

    var body: some View {
        HStack {
            Text(row.date?.text ?? "now").monospacedDigit().foregroundStyle(.secondary)
            Text(row.title)
            Spacer()
            Text(row.kind.rawValue).font(.caption)
        }
    }
}

/// A section and its rows, identified by the section's id (not its title).
private struct SectionRows: Identifiable {
    let section: RowSection
    let rows: [Row]
    var id: RowSection.ID { section.id }
}

#Preview("By year, from values") {
    let snapshot = try! ViewSnapshot(view: sketchView, after: sketchLife, now: sketchNow)
    return TimelineRowsList(view: snapshot.view, rows: snapshot.rows, sections: snapshot.sections)
}

#Preview("A plain list, from values") {
    let snapshot = try! ViewSnapshot(view: ViewDefinition(), after: sketchLife, now: sketchNow)
    return TimelineRowsList(view: snapshot.view, rows: snapshot.rows, sections: snapshot.sections)
}
#endif

/// The view the sketch shows, usable on every platform.
public let sketchView = ViewDefinition(sections: .year)

/// "Now" in the previews: fixed, so that they do not change from day to day.
let sketchNow = Instant(microsecondsSinceEpoch: 1_780_000_000_000_000)

/// The commands whose rows the previews show (the rules check them as a store would).
let sketchLife: [Command] = {
    func date(_ text: String) -> DateValue { try! DateValue(parsing: text) }
    return [
        .createTimeline("life", name: "My life"),
        .addEvent("born", timeline: "life", title: "Born", dates: .single(date("1990-04-12"))),
        .addEvent("school", timeline: "life", title: "School", dates: .range(start: date("1996-09"), end: date("2008-06"))),
        .addEvent("berlin", timeline: "life", title: "Living in Berlin", dates: .range(start: date("2019-03"), end: nil)),
    ]
}()
