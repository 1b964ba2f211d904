import Contracts
import EventSourcing
import Foundation
import ServiceKit

/// The rules for text people write on tours (review text, the guide's reply). It is plain text — stored and returned as
/// a JSON string, never interpreted as HTML or Markdown; clients render it as text.
///
/// Cleaning, in order:
/// 1. line breaks are normalised: `\r\n` and `\r` become `\n` (kept: reviews have paragraphs);
/// 2. a tab becomes a space;
/// 3. every other control character (Unicode general category Cc: U+0000–U+001F, U+007F–U+009F) is removed, and so are
///    the bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069), which can make text
///    display differently from what it says;
/// 4. Unicode canonical composition (NFC), so equal text has equal characters;
/// 5. leading and trailing white space and newlines are trimmed.
///
/// The limit — 2,000 characters (grapheme clusters) — applies to the cleaned text. Text that is empty after cleaning
/// counts as no text.
public enum ReviewText {
    public static let maximumLength = 2_000

    public static func clean(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in raw.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar.value {
            case 0x0D: scalars.append("\n")
            case 0x0A: if !previousWasCR { scalars.append("\n") }
            case 0x09: scalars.append(" ")
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: continue
            default: scalars.append(scalar)
            }
        }
        return String(scalars).precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The cleaned text, `nil` when absent or empty; records `too-long` on `field` in `validator`.
    public static func validated(_ raw: String?, field: String, required: Bool = false, into validator: inout Validator) -> String? {
        let cleaned = raw.map(clean).flatMap { $0.isEmpty ? nil : $0 }
        if required {
            validator.require(cleaned != nil, field: field, code: raw == nil ? "required" : "blank",
                              message: raw == nil ? "is required" : "must not be blank")
        }
        validator.length(cleaned, field: field, max: maximumLength)
        return cleaned
    }
}

/// Seals, opens and erases free text with per-user keys (`PersonalDataCipher` over the service's key store), whatever
/// the store's backend. Subjects are lower-case user ids, like auth's.
public struct PersonalTexts: Sendable {
    let sealText: @Sendable (_ plaintext: String, _ subject: String) async throws -> SealedPersonalData
    let openText: @Sendable (SealedPersonalData) async throws -> String?
    let eraseSubject: @Sendable (_ subject: String) async throws -> Void
    let sealingKey: @Sendable (_ subject: String) async throws -> Void

    public init(keys: any PersonalDataKeyStore) {
        self = Self.over(keys)
    }

    private static func over<Keys: PersonalDataKeyStore>(_ keys: Keys) -> PersonalTexts {
        let cipher = PersonalDataCipher(keys: keys)
        return PersonalTexts(sealText: { try await cipher.seal($0, for: $1) }, openText: { try await cipher.open($0) },
                             eraseSubject: { try await cipher.erase($0) }, sealingKey: { _ = try await keys.keyForSealing($0) })
    }

    private init(sealText: @escaping @Sendable (String, String) async throws -> SealedPersonalData,
                 openText: @escaping @Sendable (SealedPersonalData) async throws -> String?,
                 eraseSubject: @escaping @Sendable (String) async throws -> Void, sealingKey: @escaping @Sendable (String) async throws -> Void) {
        self.sealText = sealText
        self.openText = openText
        self.eraseSubject = eraseSubject
        self.sealingKey = sealingKey
    }

    static func subject(_ user: UUID) -> String { user.uuidString.lowercased() }

    /// Seals `text` for `user`; without text, still proves the user may write (their key was not erased). An erased
    /// person cannot write again: 403 `account-erased`.
    func seal(_ text: String?, for user: UUID) async throws -> SealedPersonalData? {
        do {
            guard let text else {
                try await sealingKey(Self.subject(user))
                return nil
            }
            return try await sealText(text, Self.subject(user))
        } catch PersonalDataError.subjectErased {
            throw Problem.forbidden("This account was erased.", code: "account-erased")
        }
    }

    /// The plain text; `nil` when there is none or its author was erased (or it cannot be opened, which is logged by
    /// the caller's choice of answer: a damaged value hides one text, not a whole page).
    func open(_ value: SealedPersonalData?) async -> String? {
        guard let value else { return nil }
        return try? await openText(value)
    }

    func erase(_ user: UUID) async throws {
        try await eraseSubject(Self.subject(user))
    }
}
