import ServiceKit

/// Why a draft command was refused; each case renders itself as problem+json with a stable code.
public enum PathDraftError: Error, Sendable, Hashable, ProblemConvertible {
    /// No such draft, deleted, or someone else's (never told apart: a draft is private to its author).
    case notFound
    /// A draft with this id exists already.
    case alreadyExists

    public var problem: Problem {
        switch self {
        case .notFound: .notFound("no such draft", code: "unknown-draft")
        case .alreadyExists: .conflict("A draft with this id exists already.", code: "draft-exists")
        }
    }
}
