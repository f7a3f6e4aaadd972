// libFuzzer entry: arbitrary bytes as a checkpoint file (Checkpoint.load), with the checksum
// re-sealed half of the time so that the decoder behind it is reached.
// Built into the TimelineProjections module by run.sh; not a SwiftPM target.
import TimelineCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCheckpoint(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? Checkpoint.load(bytes)
    // The same bytes as a checkpoint body with a valid header and checksum.
    bytes = Checkpoint.magic + bytes
    var crc = CRC32C.checksum(bytes).littleEndian
    withUnsafeBytes(of: &crc) { bytes.append(contentsOf: $0) }
    if let checkpoint = try? Checkpoint.load(bytes) {
        let projection = TimelineProjection(checkpoint)
        _ = projection.timelineSummaries
    }
    // Loaded to decide commands, its events read where they lie: a checkpoint that loads
    // reads every event later, without a crash.
    if let checkpoint = try? Checkpoint.load(bytes, keeping: []) {
        var projection = TimelineProjection(checkpoint)
        _ = projection.event(EventID("e1"))
        projection.events.loadAll()
        _ = projection.eventCount
    }
    return 0
}
