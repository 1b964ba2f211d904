import Foundation
import ServiceKit

/// Why a session command or position update was refused; renders itself as problem+json with a stable code.
public enum SessionError: Error, Sendable, Hashable, ProblemConvertible {
    /// No such session, or another rider's (never told apart).
    case notFound
    /// The session ended: it takes no more positions or commands.
    case ended
    /// The session is paused (positions are refused until it is resumed) or arrived (it cannot be paused).
    case notActive(SessionStatus)
    /// The tour is unknown, unpublished, or not the caller's to navigate (bought, acquired, or guided by them).
    case tourNotNavigable
    /// The tour has no stops.
    case tourWithoutStops
    /// The search for the session's route found fewer routes than the alternative asked for.
    case noSuchAlternative(asked: Int, found: Int)

    public var problem: Problem {
        switch self {
        case .notFound: .notFound("no such navigation session", code: "unknown-session")
        case .ended: .conflict("The session has ended; start a new one.", code: "session-ended")
        case .notActive(let status):
            .conflict(status == .paused ? "The session is paused; resume it first." : "The session is \(status.rawValue).", code: "session-\(status.rawValue)")
        case .tourNotNavigable:
            Problem(status: .forbidden, code: "tour-not-owned", title: "Tour not yours to navigate",
                    detail: "Navigate a published tour you bought or took, or one you guide.")
        case .tourWithoutStops:
            Problem(status: .unprocessableContent, code: "tour-without-stops", title: "Tour without stops", detail: "The tour has no stops to guide to.")
        case .noSuchAlternative(let asked, let found):
            Problem(status: .unprocessableContent, code: "no-such-alternative", title: "No such alternative",
                    detail: "Alternative \(asked) was asked for; the search found \(found) route\(found == 1 ? "" : "s") (0 is the best).")
        }
    }

    /// The session exists, is `rider`'s and has not ended.
    static func check(_ state: SessionState, rider: UUID) throws(SessionError) {
        guard state.exists, state.riderId == rider else { throw .notFound }
        guard state.status != .ended else { throw .ended }
    }
}
