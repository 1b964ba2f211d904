@testable import Analytics
import EventSourcing
import Foundation
import GRDB
import Messaging
import ServiceTesting
import Testing

@Suite("Erasure tombstones: read whole when few, looked up one by one when many — the same answer")
struct AnalyticsTombstoneTests {
    @Test("erasedIDs finds exactly the erased ids whether the tombstones are read whole or looked up")
    func bothPathsAgree() async throws {
        let directory = TemporaryDirectory("waypoint-analytics")
        defer { directory.remove() }
        let database = try SQLiteServiceDatabase(path: directory.url.appendingPathComponent("analytics.sqlite").path)
        let tables = ProjectionTables(generation: 1, isRebuild: false)
        let statements = AnalyticsStatements(tables, dialect: .sqlite)
        let ids: Set<String> = Set((0..<50).map { "user-\($0)" })
        let erased: Set<String> = ["user-3", "user-17", "user-42", "someone-not-in-the-batch"]
        let found = try await database.write { db in
            for statement in AnalyticsSchema.createStatements(tables, dialect: .sqlite) { try db.execute(sql: statement) }
            let none = try SQLiteAnalyticsTarget.erasedIDs(ids, db: db, statements: statements)
            for id in erased { try db.execute(sql: statements[.eraseMark], arguments: [AnalyticsFold.tombstone(id)]) }
            return [
                none,
                try SQLiteAnalyticsTarget.erasedIDs(ids, db: db, statements: statements),
                try SQLiteAnalyticsTarget.erasedIDs(ids, db: db, statements: statements, wholeLimit: 2),
                try SQLiteAnalyticsTarget.erasedIDs([], db: db, statements: statements, wholeLimit: 2),
            ]
        }
        #expect(found[0].isEmpty, "no tombstones, nothing erased")
        #expect(found[1] == ["user-3", "user-17", "user-42"], "read whole")
        #expect(found[2] == found[1], "looked up one by one")
        #expect(found[3].isEmpty)
    }
}
