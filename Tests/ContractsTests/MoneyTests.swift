import Contracts
import Foundation
import Testing

@Suite("Money")
struct MoneyTests {
    @Test("encodes as integer minor units plus the currency code")
    func jsonShape() throws {
        let price = Money(amountMinor: 1299, currency: .eur)
        let json = String(decoding: try ContractJSON.encode(price), as: UTF8.self)
        #expect(json == #"{"amountMinor":1299,"currency":"EUR"}"#)
        #expect(try ContractJSON.decode(Money.self, from: Data(json.utf8)) == price)
    }

    @Test("the full Int64 range survives the JSON round trip")
    func extremes() throws {
        for amount in [Int64.min, -1, 0, Int64.max] {
            let money = Money(amountMinor: amount, currency: .jpy)
            #expect(try ContractJSON.decode(Money.self, from: ContractJSON.encode(money)) == money)
        }
    }

    @Test(
        "decoding rejects an invalid currency, a fractional amount and a missing field",
        arguments: [
            #"{"amountMinor":1299,"currency":"EURO"}"#,
            #"{"amountMinor":12.99,"currency":"EUR"}"#,
            #"{"amountMinor":"1299","currency":"EUR"}"#,
            #"{"currency":"EUR"}"#,
        ]
    )
    func rejectsInvalidJSON(json: String) {
        #expect(throws: DecodingError.self) {
            try ContractJSON.decode(Money.self, from: Data(json.utf8))
        }
    }

    @Test(
        "reads in major units with the currency's own decimals",
        arguments: [
            (Money(amountMinor: 1299, currency: .eur), "12.99 EUR"),
            (Money(amountMinor: -5, currency: .eur), "-0.05 EUR"),
            (Money(amountMinor: 1500, currency: .jpy), "1500 JPY"),
            (Money(amountMinor: 1250, currency: CurrencyCode("BHD")!), "1.250 BHD"),
            (Money(amountMinor: Int64.min, currency: .usd), "-92233720368547758.08 USD"),
            (Money.zero(.gbp), "0.00 GBP"),
        ]
    )
    func description(money: Money, text: String) {
        #expect(money.description == text)
    }
}
