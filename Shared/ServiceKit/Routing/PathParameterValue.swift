#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value a path parameter can name: a `UUID` or a whole number, parsed exactly as its own initialiser does.
public protocol PathParameterValue: Sendable {
    /// The value `text` spells, or `nil` when it spells none.
    init?(pathParameter text: String)
}

extension UUID: PathParameterValue {
    /// `UUID(uuidString:)`: either case, hyphenated.
    public init?(pathParameter text: String) {
        self.init(uuidString: text)
    }
}

extension Int: PathParameterValue {
    /// `Int(_:)`: decimal digits with an optional sign.
    public init?(pathParameter text: String) {
        self.init(text)
    }
}

extension Int64: PathParameterValue {
    /// `Int64(_:)`: decimal digits with an optional sign.
    public init?(pathParameter text: String) {
        self.init(text)
    }
}
