import Foundation

/// How place and street names are compared everywhere (destinations, tour text, streets): case- and
/// diacritic-insensitive, with the letters Unicode does not decompose folded by hand (ł, ø, æ, œ, ð, þ, đ, ħ, ı, ß) and
/// typographic apostrophes made plain — so "Zürich", "ZURICH" and "zurich" are one key, and "Łódź" is "lodz".
public enum NameKey {
    private static let extraFolds: [Character: String] = [
        "ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ð": "d", "þ": "th", "đ": "d", "ħ": "h", "ı": "i", "ß": "ss",
        "’": "'", "‘": "'", "ʻ": "'", "ʼ": "'", "`": "'",
    ]

    /// The search key of `name`.
    public static func key(_ name: String) -> String {
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        guard folded.contains(where: { !$0.isASCII }) || folded.contains("`") else { return folded }
        var result = ""
        result.reserveCapacity(folded.utf8.count)
        for character in folded {
            if let replacement = extraFolds[character] { result += replacement } else { result.append(character) }
        }
        return result
    }

    /// The folded words of `text`: runs of letters and digits of its key.
    public static func words(_ text: String) -> [String] {
        key(text).split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }
}
