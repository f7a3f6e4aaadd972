// timeline-live: a terminal front end that follows a live view of a store.
//
// It subscribes to a view by year and prints its rows, then each change set as it
// arrives (flat, and as the (section, item) positions a sectioned table takes), while
// another task sends commands: the same pattern a SwiftUI or UIKit list uses. It holds
// no domain logic: it sends commands, and prints what the store pushes.
//
//   swift run timeline-live            # an in-memory store with a scripted life
//   swift run timeline-live --log LOG.jsonl  # follow a store on a log file that any
//                                            # process writes (Ctrl-C to stop)
//   swift run timeline-live --log REPLICA    # follow a replica: pending rows marked *
//                                            # until their outcome arrives
import Foundation
import TimelineKit

func show(_ changeSet: ChangeSet) {
    if changeSet.isReset {
        print("── rows at \(changeSet.to) (\(changeSet.rows.count)): reload")
    } else {
        var parts: [String] = []
        if !changeSet.removals.isEmpty { parts.append("removed \(changeSet.removals)") }
        if !changeSet.insertions.isEmpty { parts.append("inserted \(changeSet.insertions)") }
        if !changeSet.moves.isEmpty { parts.append("moved " + changeSet.moves.map { "\($0.from)→\($0.to)" }.joined(separator: ", ")) }
        if !changeSet.updates.isEmpty { parts.append("updated " + changeSet.updates.map(\.description).joined(separator: ", ")) }
        print("── \(changeSet.from) → \(changeSet.to): " + (parts.isEmpty ? "no row moved" : parts.joined(separator: "; ")))
        if changeSet.view.sections != .none, let sectioned = changeSet.sectioned {
            print("   in sections: " + describe(sectioned))
        }
    }
    show(rows: changeSet.rows, sections: changeSet.sections)
}

/// The (section, item) changes, as a sectioned table applies them.
func describe(_ change: SectionedChangeSet) -> String {
    var parts: [String] = []
    if !change.sectionDeletions.isEmpty { parts.append("sections deleted \(change.sectionDeletions)") }
    if !change.sectionInsertions.isEmpty { parts.append("sections inserted \(change.sectionInsertions)") }
    if !change.deletions.isEmpty { parts.append("deleted \(change.deletions.map(\.description).joined(separator: " "))") }
    if !change.insertions.isEmpty { parts.append("inserted \(change.insertions.map(\.description).joined(separator: " "))") }
    if !change.moves.isEmpty { parts.append("moved " + change.moves.map { "\($0.from)→\($0.to)" }.joined(separator: ", ")) }
    if !change.updates.isEmpty { parts.append("updated " + change.updates.map { "\($0.id) at \($0.path)" }.joined(separator: ", ")) }
    return parts.joined(separator: "; ")
}

func show(rows: RowList, sections: SectionList, pending: Set<EventID> = []) {
    var index = 0
    for section in sections {
        print("   \(section.title)")
        for _ in 0..<section.count {
            let row = rows[index]
            let date = row.date?.text ?? "now"
            print(padded(String(index), 4, left: true) + "  " + padded(row.kind.rawValue, 8) + padded(date, 12) + row.title
                + (pending.contains(row.id.event) ? " *" : ""))
            index += 1
        }
    }
}

func padded(_ text: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return left ? fill + text : text + fill
}

func date(_ text: String) throws -> DateValue { try DateValue(parsing: text) }

/// The scripted commands of the demo: a few years of a life, arriving one by one.
func script() throws -> [Command] {
    [
        .createTimeline("life", name: "My life"),
        .addEvent("born", timeline: "life", title: "Born", dates: .single(try date("1990-04-12"))),
        .addEvent("school", timeline: "life", title: "School", dates: .range(start: try date("1996-09"), end: nil)),
        .addEvent("berlin", timeline: "life", title: "Living in Berlin", dates: .range(start: try date("2019-03"), end: nil)),
        .closeRange("school", end: try date("2008-06")),
        .retitleEvent("born", title: "Born in Hamburg"),
        .addEvent("trip", timeline: "life", title: "Trip to Lisbon", dates: .single(try date("2027-05"))),
    ]
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--help" || arguments.first == "-h" {
    print("""
    timeline-live: follow a live view of a store and print each change set.

    usage: timeline-live [--log LOG]
      without LOG: an in-memory store, a scripted life, then the clock moving past 2027
      with LOG:    follow the store on the log file LOG, live: append from another terminal
                   with `timeline add-event --log LOG …` and each change arrives here as the
                   other process writes it (file notifications, no polling); LOG may be a
                   postgresql:// URL (a build with the PostgreSQL trait), followed through
                   LISTEN/NOTIFY, connecting again after a lost connection; LOG may be a
                   replica (`timeline clone`): what it shows, its pending rows marked * until
                   a sync brings their outcome
    """)
    exit(0)
}
// `--log LOG`, or the log as the only argument.
let logPath: String? = arguments.first == "--log" ? arguments.dropFirst().first : arguments.first

let clock = ManualClock(try date("2026-11-29").instant)

if let path = logPath, TimelineReplica.isReplica(path) {
    // What the replica shows (the mirror with its pending submissions on top), again
    // whenever it changes: a send, a sync here or in another process.
    let replica: TimelineReplica
    do { replica = try TimelineReplica(path: path, clock: clock) } catch {
        FileHandle.standardError.write(Data("timeline-live: \(error)\n".utf8))
        exit(1)
    }
    for await shown in await replica.shownChanges(ViewDefinition(placement: .now, sections: .year), now: { clock.now() }) {
        print("── rows at \(shown.position) (\(shown.rows.count), * pending)")
        show(rows: shown.rows, sections: shown.sections, pending: shown.pending)
        fflush(nil)  // each state as it comes, into a pipe or a file too
    }
    exit(0)
}

let store: TimelineStore
do {
    if let path = logPath {
        // A file log, made when missing, or a database log (followed through LISTEN/NOTIFY;
        // refused, saying how to build, without the trait), each with its checkpoint.
        let location = LogLocation(path)
        store = try TimelineStore.open(location, creating: !location.isDatabase, clock: clock,
                                       environment: ProcessInfo.processInfo.environment)
    } else {
        store = try TimelineStore(clock: clock)
    }
} catch {
    FileHandle.standardError.write(Data("timeline-live: \(error)\n".utf8))
    exit(1)
}

// The rows by year now, then the change sets that follow them.
let live = await store.subscribe(ViewDefinition(placement: .now, sections: .year))
print("── rows at \(live.snapshot.position) (\(live.snapshot.rows.count))")
show(rows: live.snapshot.rows, sections: live.snapshot.sections)
fflush(nil)
let printer = Task {
    for await changeSet in live.changes {
        show(changeSet)
        fflush(nil)  // each change set as it comes, into a pipe or a file too
    }
}

if arguments.isEmpty {
    for command in try script() {
        try await Task.sleep(for: .milliseconds(150))
        print("\n> \(command)")
        try await store.send(command)
    }
    try await Task.sleep(for: .milliseconds(150))
    print("\n> the clock moves to 2028: the ongoing stay in Berlin passes the trip, into section 2028")
    await store.advanceClock(to: try date("2028").instant)
    try await Task.sleep(for: .milliseconds(150))
    try await store.close()
    _ = await printer.value
} else {
    _ = await printer.value
}
