import Contracts
import EventSourcing
import Foundation
import Messaging
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: exchange rates (exact decimals, minor-unit exponents, both backends)")
struct ExchangeRatesTests {
    static func rates(_ pairs: [String: String]) -> [String: DecimalRate] {
        pairs.mapValues { DecimalRate($0)! }
    }

    static let table = ExchangeRateTable(
        rates: rates(["USD": "1.0842", "JPY": "162.31", "GBP": "0.8581", "BHD": "0.4087", "CLF": "0.0362"]),
        updatedAt: Date(timeIntervalSince1970: 1_795_341_600))

    @Test("rates are positive decimal strings: at most 7 integer and 10 fraction digits, canonical spelling")
    func parsing() {
        for (text, canonical) in [("1", "1"), ("1.0842", "1.0842"), ("1.50", "1.5"), ("0001.2", "1.2"), ("0.000123", "0.000123"),
                                  ("9999999.9999999999", "9999999.9999999999"), ("162.310", "162.31"), ("10", "10"), ("10.0", "10")] {
            #expect(DecimalRate(text)?.description == canonical, "\(text)")
        }
        for bad in ["", "0", "0.0", "-1", "+1", "1e3", "1.", ".5", "12345678", "1.12345678901", " 1", "1,5", "١", "1.2.3", "NaN"] {
            #expect(DecimalRate(bad) == nil, "\(bad)")
        }
    }

    @Test("conversion: amount × to / from with each currency's exponent (JPY 0, BHD 3, CLF 4), rounded half up")
    func conversion() {
        func convert(_ amount: Int64, _ from: CurrencyCode, _ to: String, table: ExchangeRateTable = Self.table) -> Int64? {
            table.convert(Money(amountMinor: amount, currency: from), to: CurrencyCode(to)!)?.amountMinor
        }
        #expect(convert(1_299, .eur, "USD") == 1_408, "12.99 × 1.0842 = 14.083758")
        #expect(convert(1_299, .eur, "JPY") == 2_108, "12.99 × 162.31 = 2108.4069 yen")
        #expect(convert(1_500, .jpy, "EUR") == 924, "1500 / 162.31 = 9.2416")
        #expect(convert(2_000, .usd, "GBP") == 1_583, "cross rate through EUR: 20 / 1.0842 × 0.8581 = 15.829")
        #expect(convert(1_000, .eur, "BHD") == 4_087, "three decimals")
        #expect(convert(1_299, .eur, "CLF") == 4_702, "four decimals: 12.99 × 0.0362 = 0.470238")
        #expect(convert(1_299, .eur, "CHF") == nil, "no rate")
        #expect(convert(1_299, .chf, "EUR") == nil, "no rate")

        let halves = ExchangeRateTable(rates: Self.rates(["JPY": "250", "USD": "1.5"]), updatedAt: nil)
        #expect(convert(1, .eur, "JPY", table: halves) == 3, "2.5 → 3: half up, not half even")
        #expect(convert(-1, .eur, "JPY", table: halves) == -3, "symmetric: away from zero")
        #expect(convert(1, .eur, "USD", table: halves) == 2, "1.5 cents → 2")
        #expect(convert(0, .eur, "USD", table: halves) == 0)

        let same = Self.table.convert(Money(amountMinor: 1_299, currency: .jpy), to: .jpy)
        #expect(same == ConvertedPrice(amountMinor: 1_299, currency: .jpy, ratesUpdatedAt: nil))
        let converted = Self.table.convert(Money(amountMinor: 1_299, currency: .eur), to: .usd)
        #expect(converted?.ratesUpdatedAt == Self.table.updatedAt)

        let extreme = ExchangeRateTable(rates: Self.rates(["CLF": "9999999.9999999999", "JPY": "0.0000000001"]), updatedAt: nil)
        #expect(extreme.convert(Money(amountMinor: Int64.max, currency: .jpy), to: CurrencyCode("CLF")!) == nil, "overflow is no answer")
        #expect(extreme.convert(Money(amountMinor: 100_000_000, currency: .eur), to: CurrencyCode("CLF")!) != nil, "largest prices convert")
    }

    @Test("the table is replaced whole and read back the same; the service's cache sees its own replacement at once",
          arguments: TestBackend.enabled)
    func store(backend: TestBackend) async throws {
        try await backend.withServiceStorage("tour-management", logger: MediaTestSupport.quiet) { storage in
            let rates = ExchangeRates(store: try await TourManagementStores.open(storage).exchangeRates, cacheLifetime: .seconds(60))
            #expect(try await rates.table() == ExchangeRateTable())
            #expect(try await rates.converted(Money(amountMinor: 1_299, currency: .eur), to: .usd) == nil, "no rates yet")
            #expect(try await rates.converted(Money(amountMinor: 1_299, currency: .eur), to: nil) == nil, "no currency asked")
            #expect(try await rates.converted(Money(amountMinor: 1_299, currency: .eur), to: .eur)?.amountMinor == 1_299)

            let at = Date(timeIntervalSince1970: 1_795_341_600.123456)
            let replaced = try await rates.replace(Self.rates(["USD": "1.0842", "JPY": "162.31"]), at: at)
            #expect(try await rates.converted(Money(amountMinor: 1_299, currency: .eur), to: .usd)
                        == ConvertedPrice(amountMinor: 1_408, currency: .usd, ratesUpdatedAt: replaced.updatedAt))
            let fresh = ExchangeRates(store: try await TourManagementStores.open(storage).exchangeRates, cacheLifetime: .zero)
            #expect(try await fresh.table() == replaced)
            #expect(replaced.updatedAt == at.roundedToMicroseconds)

            _ = try await rates.replace(Self.rates(["GBP": "0.8581"]), at: at.addingTimeInterval(60))
            let after = try await fresh.table()
            #expect(after.rates.keys.sorted() == ["GBP"], "currencies left out are removed")
            #expect(try await fresh.convert(Money(amountMinor: 1_299, currency: .eur), to: .usd) == nil)
        }
    }
}
