/// Collects every rule a request body breaks, then throws one 422 problem listing all of them.
///
/// ```swift
/// var validator = Validator()
/// validator.length(body.title, field: "title", min: 1, max: 120)
/// validator.range(body.priceMinor, field: "priceMinor", 0...1_000_000)
/// validator.oneOf(body.theme, field: "theme", allowed: Theme.allCases.map(\.rawValue))
/// try validator.check()
/// ```
/// Checks of optional values pass when the value is `nil`; use ``require(_:field:code:message:)`` or
/// ``present(_:field:)`` for mandatory fields.
public struct Validator: Sendable {
    /// The failures recorded so far, in the order they were found.
    public private(set) var fieldErrors: [FieldError] = []
    /// Prefix added to every field name, e.g. `stops[2].` inside ``nested(_:_:)``.
    private var prefix: String

    /// Creates an empty validator.
    public init() {
        self.prefix = ""
    }

    /// Whether no rule has been broken.
    public var isValid: Bool { fieldErrors.isEmpty }

    /// Records a failure with `code` and `message` on `field` unless `condition` holds.
    public mutating func require(_ condition: Bool, field: String, code: String, message: String) {
        if !condition {
            fieldErrors.append(FieldError(field: prefix + field, code: code, message: message))
        }
    }

    /// Requires a value to be present (`required`).
    public mutating func present(_ value: (some Any)?, field: String) {
        require(value != nil, field: field, code: "required", message: "is required")
    }

    /// Requires a string with at least one non-whitespace character (`blank`).
    public mutating func notBlank(_ value: String?, field: String) {
        guard let value else { return }
        require(!value.allSatisfy(\.isWhitespace), field: field, code: "blank", message: "must not be blank")
    }

    /// Requires between `min` and `max` characters (`too-short`, `too-long`), counting grapheme clusters.
    public mutating func length(_ value: String?, field: String, min: Int = 0, max: Int) {
        guard let value else { return }
        let count = value.count
        require(count >= min, field: field, code: "too-short", message: "must be at least \(min) characters")
        require(count <= max, field: field, code: "too-long", message: "must be at most \(max) characters")
    }

    /// Requires a value inside `bounds` (`out-of-range`).
    public mutating func range<Value: Comparable>(_ value: Value?, field: String, _ bounds: ClosedRange<Value>) {
        guard let value else { return }
        require(
            bounds.contains(value),
            field: field,
            code: "out-of-range",
            message: "must be between \(bounds.lowerBound) and \(bounds.upperBound)"
        )
    }

    /// Requires between `min` and `max` elements (`too-few`, `too-many`).
    public mutating func count(_ value: (some Collection)?, field: String, min: Int = 0, max: Int) {
        guard let value else { return }
        require(value.count >= min, field: field, code: "too-few", message: "must contain at least \(min) items")
        require(value.count <= max, field: field, code: "too-many", message: "must contain at most \(max) items")
    }

    /// Requires one of `allowed` (`not-allowed`).
    public mutating func oneOf(_ value: String?, field: String, allowed: some Collection<String>) {
        guard let value else { return }
        let list = allowed.sorted().joined(separator: ", ")
        require(allowed.contains(value), field: field, code: "not-allowed", message: "must be one of: \(list)")
    }

    /// Requires something shaped like an e-mail address (`invalid-email`): one `@`, a dotted domain,
    /// no spaces, at most 254 characters. Deliverability is proven by sending mail, not by a pattern.
    public mutating func email(_ value: String?, field: String) {
        guard let value else { return }
        require(Self.looksLikeEmail(value), field: field, code: "invalid-email", message: "must be an e-mail address")
    }

    /// Requires a BCP 47 language tag in its common form (`invalid-language`): a 2–3 letter language, then up to three
    /// subtags of 2–8 letters or digits, e.g. `en`, `de-AT`, `zh-Hant-TW`.
    public mutating func languageTag(_ value: String?, field: String) {
        guard let value else { return }
        require(Self.isLanguageTag(value), field: field, code: "invalid-language", message: "must be a BCP 47 language tag such as en or de-AT")
    }

    /// Whether `tag` is a BCP 47 language tag in its common form.
    public static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }),
              parts.count <= 4, tag.count <= 35
        else { return false }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// Validates a nested value with field names prefixed by `field`, e.g. `stops[2].title`.
    public mutating func nested(_ field: String, _ body: (inout Validator) -> Void) {
        var child = Validator()
        child.prefix = prefix + field + "."
        body(&child)
        fieldErrors.append(contentsOf: child.fieldErrors)
    }

    /// Validates each element of `elements` with field names `field[index].…`.
    public mutating func each<Element>(_ elements: [Element]?, field: String, _ body: (inout Validator, Element) -> Void) {
        for (index, element) in (elements ?? []).enumerated() {
            nested("\(field)[\(index)]") { body(&$0, element) }
        }
    }

    /// Throws ``Problem/unprocessable(fieldErrors:detail:)`` listing every failure, if there is any.
    public func check() throws {
        if !fieldErrors.isEmpty {
            throw Problem.unprocessable(fieldErrors: fieldErrors)
        }
    }

    static func looksLikeEmail(_ value: String) -> Bool {
        guard value.count <= 254, !value.contains(where: \.isWhitespace) else { return false }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }
}
