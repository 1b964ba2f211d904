import Foundation

/// Where the table is kept: `exchange_rates (currency PRIMARY KEY, rate TEXT, updated_at)` in the service's database
/// (reference data operators maintain, not events). One implementation per backend.
public protocol ExchangeRateStore: Sendable {
    /// The stored table (no rates and no time when operators never set any).
    func load() async throws -> ExchangeRateTable
    /// Replaces the whole table in one transaction.
    func replace(with rates: [String: DecimalRate], at date: Date) async throws
}

/// A stored rate that does not parse (the table was edited by hand).
public struct ExchangeRateCorruption: Error, CustomStringConvertible {
    public var currency: String
    public var rate: String
    public var description: String { "exchange_rates row \(currency) has an unreadable rate '\(rate)'" }
}
