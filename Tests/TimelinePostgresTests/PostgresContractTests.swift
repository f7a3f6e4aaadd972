#if PostgreSQL
import EventLogContract
import Testing

/// The ``EventLogContract`` that the file and in-memory logs pass, on PostgreSQL.
@Suite(.enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresContractTests {
    @Test func appendsReturnContiguousPositionsAcrossBatchesAndReopening() throws {
        try EventLogContract.appendsReturnContiguousPositionsAcrossBatchesAndReopening(PostgresFixture("contiguous"))
    }

    @Test func severalBatchesAppendInOneHold() throws {
        try EventLogContract.severalBatchesAppendInOneHold(PostgresFixture("several"))
    }

    @Test func aConflictAppendsNothing() throws {
        try EventLogContract.aConflictAppendsNothing(PostgresFixture("conflict"))
    }

    @Test func aResentCommandAppendsOnce() throws {
        try EventLogContract.aResentCommandAppendsOnce(PostgresFixture("resent"))
    }

    @Test func anEmptyBatchIsRefused() throws {
        try EventLogContract.anEmptyBatchIsRefused(PostgresFixture("empty"))
    }

    @Test func recordsAfterEveryPosition() throws {
        try EventLogContract.recordsAfterEveryPosition(PostgresFixture("after"))
    }

    @Test func resumePointsDescribeTheirLogAndNoOther() throws {
        try EventLogContract.resumePointsDescribeTheirLogAndNoOther(PostgresFixture("resume"),
                                                                   other: PostgresFixture("resume-other"))
    }

    @Test func concurrentAppendsNeverInterleave() async throws {
        try await EventLogContract.concurrentAppendsNeverInterleave(PostgresFixture("concurrent"))
    }
}
#endif
