import Contracts
import EventSourcing
import Foundation
import GRDB

/// ``ExchangeRateStore`` in the embedded SQLite database.
public struct SQLiteExchangeRateStore: ExchangeRateStore {
    let database: SQLiteServiceDatabase

    /// The store over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func load() async throws -> ExchangeRateTable {
        try await database.read { db in
            var table = ExchangeRateTable()
            for row in try Row.fetchAll(db, sql: "SELECT currency, rate, updated_at_us FROM exchange_rates") {
                let code: String = row["currency"], text: String = row["rate"], micros: Int64 = row["updated_at_us"]
                guard let rate = DecimalRate(text) else { throw ExchangeRateCorruption(currency: code, rate: text) }
                table.rates[code] = rate
                table.updatedAt = Date(microsecondsSince1970: micros)
            }
            return table
        }
    }

    public func replace(with rates: [String: DecimalRate], at date: Date) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM exchange_rates")
            let insert = try db.makeStatement(sql: "INSERT INTO exchange_rates (currency, rate, updated_at_us) VALUES (?, ?, ?)")
            for (code, rate) in rates { try insert.execute(arguments: [code, rate.description, date.microsecondsSince1970]) }
        }
    }
}
