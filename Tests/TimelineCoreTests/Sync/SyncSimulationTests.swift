import Synchronization
import Testing
import TimelineTestSupport
@testable import TimelineCore


@Suite("Sync: the seeded simulation of section 10")
struct SyncSimulationTests {
    static func run(seed: UInt64) throws -> SyncSimulation {
        try SyncSimulation.run(seed: seed, salt: 0x5EED, steps: 120, throughFolder: false)
    }

    @Test(arguments: 0..<UInt64(500))
    func propertiesHold(seed: UInt64) throws {
        _ = try Self.run(seed: seed)
    }

    @Test func theSameSeedGivesTheSameRun() throws {
        #expect(try Self.run(seed: 42).digest == (try Self.run(seed: 42).digest))
        #expect(try Self.run(seed: 42).digest != (try Self.run(seed: 43).digest))
    }
}

extension SyncSimulationTests {
    /// The simulation exercises what it claims: submissions accepted and rejected (among
    /// them stale references and conflicts between devices), kills and lost replies.
    @Test func theRunsCoverConflictsAndFaults() throws {
        var accepted = 0, rejected = 0, rules: Set<String> = [], kills = 0, failures = 0, stopped = 0, unseen = 0
        for seed in 0..<UInt64(40) {
            let simulation = try Self.run(seed: seed)
            for record in simulation.sharedRecords where record.commandID != nil && record.batchRemainder == 0 {
                if case .commandRejected(_, let rule, let message) = record.facts[0] {
                    rejected += 1
                    rules.insert(rule)
                    if message.contains("would be removed unseen") { unseen += 1 }
                } else {
                    accepted += 1
                }
            }
            kills += simulation.log.filter { $0.contains("killed at") }.count
            failures += simulation.log.filter { $0.contains("failed") }.count
            stopped += simulation.devices.filter(\.stopped).count
        }
        #expect(accepted > 300)
        #expect(rejected > 40)
        #expect(rules.isSuperset(of: ["unknownEvent", "unknownTimeline", "eventExists"]))
        #expect(kills > 20)
        #expect(failures > 20)
        #expect(stopped > 0, "no run found a restored copy of a device")
        #expect(unseen > 0, "no run removed a timeline that another device had put an event in meanwhile")
    }
}
