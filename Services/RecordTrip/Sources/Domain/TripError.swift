import Foundation
import ServiceKit

/// Why a trip command was refused; each case renders itself as problem+json with a stable code.
public enum TripError: Error, Sendable, Hashable, ProblemConvertible {
    /// No such trip, deleted, or someone else's (never tell them apart: a trip's existence is private).
    case notFound
    /// A chunk with this sequence number was received with other content.
    case chunkConflict(sequence: Int)
    /// The trip is finished: no more samples.
    case alreadyFinished
    /// Review or export of a trip still recording.
    case notFinished
    /// The trip was reviewed already.
    case alreadyReviewed
    /// Finishing a trip that has no fix at all.
    case empty
    /// The trip would hold more fixes or accelerometer samples than allowed.
    case tooManySamples(String)
    /// The trip would last longer than allowed.
    case tooLong(seconds: Double, limit: Double)
    /// The rider's account was erased: nothing new is recorded for them.
    case riderErased
    /// The GPX upload could not be read.
    case invalidGPX(String)
    /// Two writers changed the trip at once.
    case concurrentChange

    public var problem: Problem {
        switch self {
        case .notFound: .notFound("no such trip", code: "unknown-trip")
        case .chunkConflict(let sequence):
            .conflict("Chunk \(sequence) was already received with other samples; a chunk's samples never change.", code: "chunk-conflict")
        case .alreadyFinished: .conflict("The trip is finished; it takes no more samples.", code: "trip-finished")
        case .notFinished: .conflict("The trip is not analysed yet: finish it, or wait for its analysis (status `analysing`).", code: "trip-not-finished")
        case .alreadyReviewed: .conflict("The trip's obstacle candidates were reviewed already.", code: "already-reviewed")
        case .empty:
            Problem(status: .unprocessableContent, code: "empty-trip", title: "Empty trip",
                    detail: "The trip has no GPS fix; upload samples before finishing it, or delete it.")
        case .tooManySamples(let detail):
            Problem(status: .contentTooLarge, code: "trip-too-large", title: "Trip too large", detail: detail)
        case let .tooLong(seconds, limit):
            Problem(status: .unprocessableContent, code: "trip-too-long", title: "Trip too long",
                    detail: "The fixes span \(Self.seconds(seconds)) s; a trip lasts at most \(Self.seconds(limit)) s.")
        case .riderErased: .forbidden("The account was erased.", code: "account-erased")
        case .invalidGPX(let reason):
            Problem(status: .unprocessableContent, code: "invalid-gpx", title: "Invalid GPX", detail: reason)
        case .concurrentChange: .conflict("The trip changed at the same time; retry.", code: "version-conflict")
        }
    }

    /// Whole seconds for a message, for any number a client may send (a fix at 10¹²⁹ s would trap `Int(_:)`).
    static func seconds(_ value: Double) -> String {
        value.isFinite && abs(value) < 1e15 ? String(Int(value)) : String(describing: value)
    }
}
