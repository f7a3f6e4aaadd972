import Testing
import TimelineCore
import TimelineProjections
import TimelineTestSupport
@testable import TimelineKit

@Suite("Store on the main actor")
@MainActor
struct MainActorStoreTests {
    /// A store opened with `.mainActor` runs on the main actor's executor: main-actor code
    /// is already isolated to it (`assumeIsolated` traps otherwise).
    @Test func aStoreOnTheMainActorIsIsolatedToIt() async throws {
        let store = try TimelineStore(clock: ManualClock(fixedNow), executor: .mainActor)
        try await store.send(.createTimeline("life", name: "My life"))
        #expect(Self.synchronousRead(of: store) == (position: 1, rowCount: 0))
    }

    /// Reads the store from synchronous main-actor code, as a view's body would.
    private static func synchronousRead(of store: TimelineStore) -> (position: Int64, rowCount: Int) {
        store.assumeIsolated { store in (store.position, store.rows().count) }
    }

    /// Commands sent one after another from the main actor reach every subscriber as a
    /// chain of change sets: none lost, none out of order, ending at the store's rows.
    @Test(arguments: [TimelineStore.ExecutorChoice.own, .mainActor], [UInt64(3), 11])
    func everyChangeSetOfMainActorSendsArrivesInOrder(executor: TimelineStore.ExecutorChoice, seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let store = try TimelineStore(clock: ManualClock(fixedNow), executor: executor)
        try await store.send([.createTimeline("home", name: "Home"), .createTimeline("work", name: "Work")])
        let views = [ViewDefinition(), ViewDefinition(filter: .timeline("work"), order: .descending, sections: .year)]
        var subscriptions: [ViewSubscription] = []
        for view in views { subscriptions.append(await store.subscribe(view, bufferLimit: 10_000)) }

        var events: [EventID] = []
        var positions: [Int64] = []
        for index in 0..<150 {
            let timeline: TimelineID = random.below(2) == 0 ? "home" : "work"
            let command: Command
            switch events.isEmpty ? 0 : random.below(4) {
            case 1:
                command = .removeEvent(events.remove(at: random.below(events.count)))
            case 2:
                command = .moveEvent(events[random.below(events.count)], to: timeline)
            default:
                let id = EventID("e\(index)")
                events.append(id)
                command = .addEvent(id, timeline: timeline, title: "Event \(index)",
                                    dates: .single(date("\(1950 + random.below(70))")))
            }
            positions += try await store.send(command).map(\.position)
        }
        // The last command changes both views, so that each stream reaches the final position.
        positions += try await store.send(.addEvent("last", timeline: "work", title: "Last", dates: .single(date("2001"))))
            .map(\.position)
        let final = await store.position
        #expect(positions == Array(3...final))

        for (view, subscription) in zip(views, subscriptions) {
            var rows = Array(subscription.snapshot.rows)
            var last = subscription.snapshot.position
            for await changeSet in subscription.changes {
                #expect(!changeSet.isReset, "no subscriber fell behind")
                #expect(changeSet.from == last, "change sets chain")
                rows = changeSet.applied(to: rows)
                last = changeSet.to
                if last >= final { break }
            }
            #expect(last == final)
            #expect(rows == Array(await store.rows(view)))
        }
    }
}
