import Testing
import TimelineTestSupport
@testable import TimelineCore

/// A replica checks a send against what it shows, kept between sends: for random sends
/// (some refused, some that no longer pass once another device's changes arrive) and
/// syncs, every check answers as deciding against the mirror with every pending
/// submission decided again on top.
@Suite("What a replica shows, kept between sends")
struct ShownStateTests {
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func aKeptStateAnswersAsOneMadeAgain(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let shared = InMemoryEventLog()
        _ = try shared.append([.timelineCreated(timeline: "life", name: "Life")], options: AppendOptions())
        let ids = (0..<6).map { EventID("e\($0)") }
        let date = try DateValue(parsing: "2000")
        func randomCommand() -> Command {
            let id = ids.randomElement(using: &rng)!
            return switch Int.random(in: 0..<4, using: &rng) {
            case 0: .addEvent(id, timeline: "life", title: "A", dates: .single(date))
            case 1: .removeEvent(id)
            case 2: .retitleEvent(id, title: "T\(Int.random(in: 0..<9, using: &rng))")
            default: .setRange(id, start: date, end: nil)
            }
        }
        var devices = try (1...2).map { number in
            let storage = MemoryReplicaStorage(device: DeviceID("018f0000-0000-7000-8000-00000000000\(number)")!)
            var replica = try ReplicaSync(storage: storage, sharedName: "shared")
            _ = try replica.sync(with: shared, now: { nil })
            return replica
        }
        for step in 0..<200 {
            let k = Int.random(in: 0..<2, using: &rng)
            if Int.random(in: 0..<5, using: &rng) == 0 {
                _ = try devices[k].sync(with: shared, now: { nil })
                continue
            }
            let commands = (0..<Int.random(in: 1...2, using: &rng)).map { _ in randomCommand() }
            let made = Result { () throws(Rejection) in
                try Decider.decide(commands, devices[k].queue.tentative(on: devices[k].shared.domain).shown)
            }
            let kept = Result { () throws(Rejection) in try devices[k].check(commands) }
            #expect(kept == made, "seed \(seed), step \(step)")
            if case .success = kept {
                _ = try devices[k].send(commands, madeAt: nil, nonce: "n\(step)")
            }
        }
    }
}
