import Contracts
import EventSourcing
import Foundation
import RecordTripAnalysis

// The events of a trip's stream `trip-<tripId>` that stay in record-trip's log (the published ones — `TripFinished`,
// `TripDeleted`, `ObstacleConfirmed`, `RideSubmittedAsPathDraft` — are in `Shared/Contracts/Trips`). Samples, tracks,
// routes and candidate places are sealed with the rider's key (`SealedPersonalData`): erasing the key erases the ride
// from every copy of the log. Figures and times stay in clear.

/// A rider started recording a trip (or imported one).
public struct TripStarted: EventPayload, Hashable {
    public static let eventType = "TripStarted"
    public var tripId: UUID
    public var riderId: UUID
    /// The navigation session the ride followed, when the phone linked one.
    public var navigationSessionId: UUID?
    /// `recorded` or `imported`.
    public var source: String
    public var startedAt: Date
}

/// One chunk of samples, sealed; `digest` (SHA-256 of the sealed bytes in the recorded `format`) tells a repeated upload
/// from a different one under the same sequence number.
public struct TripSamplesReceived: EventPayload, Hashable {
    public static let eventType = "TripSamplesReceived"
    public var tripId: UUID
    public var sequence: Int
    public var digest: String
    public var fixCount: Int
    public var accelerationCount: Int
    /// Earliest and latest fix time in the chunk, seconds since the Unix epoch (`nil` without fixes).
    public var firstFixTime: Double?
    public var lastFixTime: Double?
    /// ``TripSamples`` in `format`, sealed with the rider's key.
    public var samples: SealedPersonalData
    public var receivedAt: Date
    /// How `samples` is written: ``TripSamplesFormat/binaryV1`` since it exists; absent (`nil`) in the chunks recorded
    /// before, which are JSON and stay so.
    public var format: TripSamplesFormat? = nil

    /// The format the sealed samples are in (JSON when the event predates the field).
    public var samplesFormat: TripSamplesFormat { format ?? .json }
}

// A chunk's event is written on every upload and read by the trip's aggregate (the chunks since its last snapshot),
// the trips projection and the analysis (every chunk of the ride): written and read without `Codable` (``JSONWritable``,
// ``JSONReadable``; `JSONDecoder` scanned and validated the whole sealed string for each), members in sorted order as
// `ContractJSON` writes them. Anything else — an event of another shape, a `null` — is read by `JSONDecoder`.
extension TripSamplesReceived: JSONWritable, JSONReadable {
    public static var jsonStyle: JSONOutput.Style { .contract }

    public func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("accelerationCount", accelerationCount)
            output.member("digest", digest)
            output.member("firstFixTime", firstFixTime)
            output.member("fixCount", fixCount)
            output.member("format", format?.rawValue)
            output.member("lastFixTime", lastFixTime)
            output.member("receivedAt", receivedAt)
            output.member("samples", samples)
            output.member("sequence", sequence)
            output.member("tripId", tripId)
        }
    }

    public static func readJSON(_ data: Data) -> Self? {
        StrictJSONCursor.read(data) { cursor in
            var tripId: UUID?, sequence: Int?, digest: String?, fixCount: Int?, accelerationCount: Int?
            var firstFixTime: Double?, lastFixTime: Double?, samples: SealedPersonalData?, receivedAt: Date?
            var format: TripSamplesFormat?
            var seen = Set<String>()
            let complete = cursor.object { cursor, key in
                guard seen.insert(key).inserted else { return false }
                switch key {
                case "accelerationCount": accelerationCount = cursor.integer()
                case "digest": digest = cursor.plainString()
                case "firstFixTime": firstFixTime = cursor.number(); return firstFixTime != nil
                case "fixCount": fixCount = cursor.integer()
                case "format": format = cursor.plainString().flatMap(TripSamplesFormat.init(rawValue:)); return format != nil
                case "lastFixTime": lastFixTime = cursor.number(); return lastFixTime != nil
                case "receivedAt": receivedAt = cursor.plainString().flatMap(RFC3339Timestamp.date(from:))
                case "samples": samples = SealedPersonalData.read(&cursor)
                case "sequence": sequence = cursor.integer()
                case "tripId": tripId = cursor.plainString().flatMap(UUID.init(uuidString:))
                default: return false
                }
                return true
            }
            guard complete, let tripId, let sequence, let digest, let fixCount, let accelerationCount, let samples, let receivedAt
            else { return nil }
            return TripSamplesReceived(tripId: tripId, sequence: sequence, digest: digest, fixCount: fixCount,
                                       accelerationCount: accelerationCount, firstFixTime: firstFixTime, lastFixTime: lastFixTime,
                                       samples: samples, receivedAt: receivedAt, format: format)
        }
    }
}

/// The analysis of a finished trip: figures in clear, everything placed (statistics with start and end, the matched
/// route, candidates) sealed as ``TripAnalysisDetail``.
public struct TripAnalysed: EventPayload, Hashable {
    public static let eventType = "TripAnalysed"
    public var tripId: UUID
    public var riderId: UUID
    public var figures: TripFigures
    public var cleaning: CleaningCounts
    /// The first kept fix's time (`nil` when none was kept).
    public var rideStartedAt: Date?
    public var fixCount: Int
    public var keptFixCount: Int
    public var matchedLengthM: Double
    public var confidence: Double
    public var candidateCount: Int
    public var detail: SealedPersonalData
    public var analysedAt: Date
}

/// The rider finished recording (or imported a ride): no chunk is taken from now on, and the analysis is due. The
/// analysis runs off the request (``TripAnalysisQueue``); a crash before it lands leaves the trip `analysing`, and the
/// ``TripAnalysisWorker`` picks it up again.
public struct TripFinishRequested: EventPayload, Hashable {
    public static let eventType = "TripFinishRequested"
    public var tripId: UUID
    public var requestedAt: Date
}

/// The weather at the ride's start, when the provider answered (at finish, or later from the backfill worker).
public struct TripWeatherRecorded: EventPayload, Hashable {
    public static let eventType = "TripWeatherRecorded"
    public var tripId: UUID
    public var weather: WeatherObservation
    public var recordedAt: Date
}

/// The rider reviewed the trip's obstacle candidates (and maybe corrected its route); the outcome is sealed
/// (``TripReviewOutcome``), the confirmed obstacles follow as published `ObstacleConfirmed` events.
public struct TripReviewed: EventPayload, Hashable {
    public static let eventType = "TripReviewed"
    public var tripId: UUID
    public var riderId: UUID
    public var confirmed: Int
    public var rejected: Int
    public var added: Int
    public var routeCorrected: Bool
    public var submittedAsPathDraft: Bool
    public var outcome: SealedPersonalData
    public var reviewedAt: Date
}

extension TripFinished: EventPayload {}
/// Published since issue 22 (the contract type is the payload; the stored events before it read the same).
extension TripDeleted: EventPayload {}
extension ObstacleConfirmed: EventPayload {}
extension RideSubmittedAsPathDraft: EventPayload {}

/// What one chunk carries (and what a sealed chunk opens to).
public struct TripSamples: Codable, Sendable, Hashable {
    public var fixes: [GPSFix]
    public var acceleration: [AccelerationSample]

    /// Samples as uploaded.
    public init(fixes: [GPSFix], acceleration: [AccelerationSample]) {
        self.fixes = fixes
        self.acceleration = acceleration
    }

    /// Sorted-key JSON: the same samples always give the same bytes (and digest). The format of chunks recorded before
    /// ``TripSamplesFormat/binaryV1``.
    public func canonicalJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self)
    }

    /// The samples as written in `format`.
    public func encoded(as format: TripSamplesFormat) throws -> Data {
        switch format {
        case .json: try canonicalJSON()
        case .binaryV1: TripSamplesBinary.encode(self)
        }
    }

    /// Samples back from bytes written in `format`.
    public static func decode(_ bytes: Data, format: TripSamplesFormat) throws -> TripSamples {
        switch format {
        case .json: try JSONDecoder().decode(TripSamples.self, from: bytes)
        case .binaryV1: try TripSamplesBinary.decode(bytes)
        }
    }
}
