import ServiceKit
import Testing

@Suite("Validator collects every failure")
struct ValidatorTests {
    @Test("a valid value records nothing and check does not throw")
    func valid() throws {
        var validator = Validator()
        validator.length("Old Town", field: "title", min: 1, max: 120)
        validator.range(12, field: "count", 1...20)
        validator.email("a.b@example.org", field: "email")
        validator.oneOf("EUR", field: "currency", allowed: ["EUR", "USD"])
        #expect(validator.isValid)
        try validator.check()
    }

    @Test("check throws one 422 problem listing all failures")
    func listsAll() {
        var validator = Validator()
        validator.present(nil as String?, field: "title")
        validator.length(String(repeating: "x", count: 200), field: "summary", max: 160)
        validator.require(false, field: "startsAt", code: "in-the-past", message: "must be in the future")
        #expect(throws: Problem.unprocessable(fieldErrors: [
            FieldError(field: "title", code: "required", message: "is required"),
            FieldError(field: "summary", code: "too-long", message: "must be at most 160 characters"),
            FieldError(field: "startsAt", code: "in-the-past", message: "must be in the future"),
        ])) {
            try validator.check()
        }
    }

    @Test("nested and element fields get dotted and indexed names")
    func nestedNames() {
        var validator = Validator()
        validator.nested("price") { $0.range(-1, field: "amountMinor", 0...100) }
        validator.each(["ok", ""], field: "tags") { validator, tag in validator.length(tag, field: "value", min: 1, max: 10) }
        #expect(validator.fieldErrors.map(\.field) == ["price.amountMinor", "tags[1].value"])
    }

    @Test("optional values that are absent pass every check but present")
    func absentOptionalsPass() {
        var validator = Validator()
        validator.length(nil, field: "a", min: 1, max: 2)
        validator.range(nil as Int?, field: "b", 0...1)
        validator.email(nil, field: "c")
        #expect(validator.isValid)
    }

    @Test("e-mail shape", arguments: [
        ("guide@example.org", true), ("a@b.co", true), ("no-at.example.org", false), ("two@@example.org", false),
        ("@example.org", false), ("user@localhost", false), ("user@exa mple.org", false), ("user@.org", false),
    ])
    func emailShape(address: String, valid: Bool) {
        var validator = Validator()
        validator.email(address, field: "email")
        #expect(validator.isValid == valid)
    }
}
