import Contracts
import EventSourcing
import Foundation
import PostgresNIO

/// ``ExchangeRateStore`` in the service's PostgreSQL database.
public struct PostgresExchangeRateStore: ExchangeRateStore {
    let database: PostgresServiceDatabase

    /// The store over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func load() async throws -> ExchangeRateTable {
        var table = ExchangeRateTable()
        let rows = try await database.client.query("SELECT currency, rate, updated_at_us FROM exchange_rates", logger: database.logger)
        for try await (code, text, micros) in rows.decode((String, String, Int64).self) {
            guard let rate = DecimalRate(text) else { throw ExchangeRateCorruption(currency: code, rate: text) }
            table.rates[code] = rate
            table.updatedAt = Date(microsecondsSince1970: micros)
        }
        return table
    }

    public func replace(with rates: [String: DecimalRate], at date: Date) async throws {
        let codes = rates.keys.sorted()
        let texts = codes.map { rates[$0]!.description }
        let micros = date.microsecondsSince1970
        try await database.transaction { connection in
            try await connection.query("DELETE FROM exchange_rates", logger: database.logger)
            try await connection.query("""
                INSERT INTO exchange_rates (currency, rate, updated_at_us) SELECT c, r, \(micros) FROM unnest(\(codes)::text[], \(texts)::text[]) AS t(c, r)
                """, logger: database.logger)
        }
    }
}
