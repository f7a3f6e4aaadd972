import Synchronization
import Testing
import TimelineTestSupport
@testable import TimelineCore

extension SyncSimulation {
    /// One step in folder mode: a device sends, syncs through its copy of the folder (killed
    /// at any point, now and then), goes offline, is restored from a backup, or its clock
    /// jumps; the sequencer runs (or is killed, or goes away for a long spell); and the
    /// file-sync service copies a file or two, with its faults.
    mutating func folderStep() {
        let k = Int.random(in: 0..<devices.count, using: &rng)
        switch Int.random(in: 0..<24, using: &rng) {
        case 0..<7: send(k)
        case 7..<11: sync(k)
        case 11:
            devices[k].online.toggle()
            folder!.online[k] = devices[k].online
        case 12: if Bool.random(using: &rng) { devices[k].replica = nil } else { restore(k) }
        case 13, 14: syncKilled(k)
        case 15: devices[k].backup = devices[k].storage.files.withLock { $0 }
        case 16: restore(k)
        case 17: clock = Instant(microsecondsSinceEpoch: clock.microsecondsSinceEpoch
                                    + Int64.random(in: -86_400_000_000...86_400_000_000, using: &rng))
        case 18..<21: sequence(killed: Int.random(in: 0..<5, using: &rng) == 0)
        case 21:
            if sequencerAway == 0 {
                sequencerAway = Int.random(in: 10...60, using: &rng)
                log.append("sequencer away for \(sequencerAway) steps")
            }
        default: break
        }
        if sequencerAway > 0 {
            sequencerAway -= 1
            folder!.online[devices.count] = sequencerAway == 0
        }
        for _ in 0..<Int.random(in: 1...3, using: &rng) { folder!.step(using: &rng) }
        clock = Instant(microsecondsSinceEpoch: clock.microsecondsSinceEpoch + 1_000_000)
    }

    /// Device `k` syncs through its copy of the folder.
    mutating func syncThroughFolder(_ k: Int, fault: (@Sendable (ReplicaSync.Step) -> Bool)?) {
        var replica = replica(k)
        replica.fault = fault
        do {
            let report = try replica.sync(throughFolder: folder!.copies[k])
            log.append("sync \(k): \(report.pushed) decided, \(report.pulled) pulled")
        } catch .interrupted(let step) {
            log.append("sync \(k) killed at \(step)")
            devices[k].replica = nil
            return
        } catch .stopped {
            if devices[k].stoppedAt == nil {
                devices[k].stoppedAt = (shared.position, pendingNonces(replica), ledger.writes.withLock { $0.count })
            }
            devices[k].stopped = true
        } catch {
            log.append("sync \(k) failed: \(error)")
        }
        replica.fault = nil
        devices[k].replica = replica
    }

    /// The sequencer runs on its copy of the folder (unless away); `killed`: it is stopped
    /// after appending its decisions, before publishing them.
    mutating func sequence(killed: Bool = false) {
        guard sequencerAway == 0 else { return }
        var sequencer = self.sequencer ?? FolderSequencer(folderName: "folder", logName: "shared")
        if killed { sequencer.fault = { @Sendable _ in true } }
        let now = DateValue(utc: clock)
        do {
            let report = try sequencer.run(log: shared, folder: folder!.copies[devices.count], now: { now })
            log.append("sequence: \(report.decided) decided, \(report.published) published, \(report.skipped) skipped")
            sequencer.fault = nil
            self.sequencer = sequencer
        } catch {
            log.append("sequence killed: \(error)")
            self.sequencer = nil
        }
    }

    /// Everyone connected, the sequencer back, the service copying everything whole,
    /// everyone syncing until nothing changes.
    mutating func healFolder() {
        for k in devices.indices {
            devices[k].online = true
            folder!.online[k] = true
        }
        sequencerAway = 0
        folder!.online[devices.count] = true
        for _ in 0..<3 {
            for k in devices.indices { sync(k) }
            folder!.settle()
            sequence()
            folder!.settle()
            for k in devices.indices { sync(k) }
            folder!.settle()
        }
    }
}

@Suite("Sync: the seeded simulation of folder mode")
struct FolderSimulationTests {
    static func run(seed: UInt64) throws -> SyncSimulation {
        try SyncSimulation.run(seed: seed, salt: 0xF01D, steps: 160, throughFolder: true)
    }

    @Test(arguments: 0..<UInt64(300))
    func propertiesHold(seed: UInt64) throws {
        _ = try Self.run(seed: seed)
    }

    @Test func theSameSeedGivesTheSameRun() throws {
        #expect(try Self.run(seed: 7).digest == (try Self.run(seed: 7).digest))
        #expect(try Self.run(seed: 7).digest != (try Self.run(seed: 8).digest))
    }

    /// The runs exercise what they claim: submissions accepted and rejected, kills of
    /// replicas and of the sequencer, the sequencer away, half-copied and odd files
    /// skipped, files brought back, restored copies stopped.
    @Test func theRunsCoverConflictsAndFaults() throws {
        var accepted = 0, rejected = 0, kills = 0, sequencerKills = 0, away = 0, stopped = 0, skipped = 0
        for seed in 0..<UInt64(40) {
            let simulation = try Self.run(seed: seed)
            for record in simulation.sharedRecords where record.commandID != nil && record.batchRemainder == 0 {
                if case .commandRejected = record.facts[0] { rejected += 1 } else { accepted += 1 }
            }
            kills += simulation.log.filter { $0.contains("killed at") }.count
            sequencerKills += simulation.log.filter { $0.hasPrefix("sequence killed") }.count
            away += simulation.log.filter { $0.hasPrefix("sequencer away") }.count
            stopped += simulation.devices.filter(\.stopped).count
            skipped += simulation.log.filter { $0.hasPrefix("sequence:") && !$0.hasSuffix(" 0 skipped") }.count
        }
        #expect(accepted > 200)
        #expect(rejected > 40)
        #expect(kills > 20)
        #expect(skipped > 20, "the sequencer never met a half-copied or odd file")
        #expect(sequencerKills > 10)
        #expect(away > 20)
        #expect(stopped > 0, "no run found a restored copy of a device")
    }
}
