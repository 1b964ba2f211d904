extension CurrencyCode {
    /// ISO 4217 List One as of amendment 180 (in force 1 January 2026): alphabetic code to
    /// minor-unit exponent.
    ///
    /// Recent changes reflected here: added SLE (171), VED (170), XCG (176), ZWG (177),
    /// XAD (179); withdrawn HRK (174), SLL (175), CUC, ANG (176), ZWL (177), BGN (180).
    /// Left out on purpose because their minor unit is "N.A.": XAG, XAU, XBA, XBB, XBC, XBD,
    /// XDR, XPD, XPT, XSU, XTS, XUA, XXX.
    /// When ISO publishes an amendment, update this table and the test that pins its size.
    static let activeMinorUnitExponents: [String: Int] = {
        let zeroDecimals = [
            "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI",
            "VND", "VUV", "XAF", "XOF", "XPF",
        ]
        let threeDecimals = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
        let fourDecimals = ["CLF", "UYW"]
        let twoDecimals = [
            "AED", "AFN", "ALL", "AMD", "AOA", "ARS", "AUD", "AWG", "AZN",
            "BAM", "BBD", "BDT", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN",
            "BZD",
            "CAD", "CDF", "CHE", "CHF", "CHW", "CNY", "COP", "COU", "CRC", "CUP", "CVE", "CZK",
            "DKK", "DOP", "DZD",
            "EGP", "ERN", "ETB", "EUR",
            "FJD", "FKP",
            "GBP", "GEL", "GHS", "GIP", "GMD", "GTQ", "GYD",
            "HKD", "HNL", "HTG", "HUF",
            "IDR", "ILS", "INR", "IRR",
            "JMD",
            "KES", "KGS", "KHR", "KPW", "KYD", "KZT",
            "LAK", "LBP", "LKR", "LRD", "LSL",
            "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN",
            "MXV", "MYR", "MZN",
            "NAD", "NGN", "NIO", "NOK", "NPR", "NZD",
            "PAB", "PEN", "PGK", "PHP", "PKR", "PLN",
            "QAR",
            "RON", "RSD", "RUB",
            "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SOS", "SRD", "SSP", "STN",
            "SVC", "SYP", "SZL",
            "THB", "TJS", "TMT", "TOP", "TRY", "TTD", "TWD", "TZS",
            "UAH", "USD", "USN", "UYU", "UZS",
            "VED", "VES",
            "WST",
            "XAD", "XCD", "XCG",
            "YER",
            "ZAR", "ZMW", "ZWG",
        ]
        var table: [String: Int] = [:]
        for (codes, exponent) in [(zeroDecimals, 0), (twoDecimals, 2), (threeDecimals, 3), (fourDecimals, 4)] {
            for code in codes {
                precondition(table.updateValue(exponent, forKey: code) == nil, "duplicate ISO 4217 code \(code)")
            }
        }
        return table
    }()
}
