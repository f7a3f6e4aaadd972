import TimelineCore
import TimelineProjections

/// What a replay produced, counted in records; the benchmark frees it after the clock stops.
protocol RecordCount {
    var recordCount: Int { get }
}

extension Int: RecordCount {
    var recordCount: Int { self }
}

extension LogReader.Contents: RecordCount {
    var recordCount: Int { records.count }
}

/// A rebuild's result: the records read and the projection built from them.
struct Rebuilt: RecordCount {
    let contents: LogReader.Contents
    let projection: TimelineProjection

    var recordCount: Int { contents.records.count }
}
