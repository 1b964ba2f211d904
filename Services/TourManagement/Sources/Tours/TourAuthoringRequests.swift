import Contracts
import Foundation
import ServiceKit

/// `POST /v1/tours` and `PUT /v1/tours/{id}/details`: a tour's details, validated against the documented rules.
public struct TourDetailsRequest: Decodable, Sendable, ValidatableRequest {
    public struct PriceRequest: Decodable, Sendable {
        public var amountMinor: Int64
        public var currency: String
    }

    public var title: String
    public var description: String
    public var destinationId: Int64
    public var themes: [String]
    public var languages: [String]
    public var price: PriceRequest
    public var estimatedMinutes: Int
    public var difficulty: String
    public var mode: String

    public func validate(into validator: inout Validator) {
        validator.length(title.trimmingCharacters(in: .whitespacesAndNewlines), field: "title", min: 3, max: 120)
        validator.length(description, field: "description", max: 5_000)
        validator.count(themes, field: "themes", max: TourTheme.allCases.count)
        for (index, theme) in themes.enumerated() {
            validator.require(TourTheme(rawValue: theme) != nil, field: "themes[\(index)]", code: "unknown-theme",
                              message: "must be one of \(TourTheme.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        validator.require(Set(themes).count == themes.count, field: "themes", code: "duplicate", message: "must not repeat a theme")
        validator.count(languages, field: "languages", min: 1, max: 20)
        for (index, language) in languages.enumerated() {
            validator.languageTag(language, field: "languages[\(index)]")
        }
        validator.require(price.amountMinor >= 0, field: "price.amountMinor", code: "negative", message: "must be 0 (free) or more")
        validator.require(price.amountMinor <= 100_000_000, field: "price.amountMinor", code: "too-large", message: "must be at most 100000000")
        validator.require(CurrencyCode(price.currency) != nil, field: "price.currency", code: "unsupported-currency",
                          message: "must be an ISO 4217 currency code such as EUR")
        validator.range(estimatedMinutes, field: "estimatedMinutes", 1...1_440)
        validator.oneOf(difficulty, field: "difficulty", allowed: TourDifficulty.allCases.map(\.rawValue))
        validator.oneOf(mode, field: "mode", allowed: TourMode.allCases.map(\.rawValue))
    }

    /// The validated details (call after `validate`).
    public var details: TourDetails {
        TourDetails(
            title: title.trimmingCharacters(in: .whitespacesAndNewlines), description: description, destinationId: destinationId,
            themes: themes.compactMap(TourTheme.init(rawValue:)), languages: languages,
            price: Money(amountMinor: price.amountMinor, currency: CurrencyCode(price.currency) ?? .eur),
            estimatedMinutes: estimatedMinutes, difficulty: TourDifficulty(rawValue: difficulty) ?? .easy, mode: TourMode(rawValue: mode) ?? .walk)
    }
}

/// `POST /v1/tours/{id}/stops` and `PUT /v1/tours/{id}/stops/{stopId}`.
public struct StopRequest: Decodable, Sendable, ValidatableRequest {
    public var name: String
    public var description: String?
    public var location: LatLng
    public var triggerRadiusMetres: Int?
    /// SHA-256 addresses of uploaded media (`POST /v1/media`).
    public var media: [String]?
    /// Where to insert a new stop (0-based; default: at the end).
    public var position: Int?

    public func validate(into validator: inout Validator) {
        validator.length(name.trimmingCharacters(in: .whitespacesAndNewlines), field: "name", min: 1, max: 120)
        validator.length(description ?? "", field: "description", max: 5_000)
        validator.require((-90...90).contains(location.lat) && location.lat.isFinite, field: "location.lat", code: "out-of-range",
                          message: "must be a latitude between -90 and 90")
        validator.require((-180...180).contains(location.lng) && location.lng.isFinite, field: "location.lng", code: "out-of-range",
                          message: "must be a longitude between -180 and 180")
        validator.range(triggerRadiusMetres ?? 30, field: "triggerRadiusMetres", 10...500)
        validator.count(media ?? [], field: "media", max: 20)
        for (index, sha) in (media ?? []).enumerated() {
            validator.require(sha.count == 64 && sha.allSatisfy(\.isHexDigit), field: "media[\(index)]", code: "invalid-media",
                              message: "must be the SHA-256 address of an upload")
        }
        if let position { validator.range(position, field: "position", 0...10_000) }
    }
}

/// `PUT /v1/tours/{id}/stops/order`.
public struct StopOrderRequest: Decodable, Sendable, ValidatableRequest {
    public var stopIds: [UUID]

    public func validate(into validator: inout Validator) {
        validator.count(stopIds, field: "stopIds", min: 1, max: 500)
    }
}

/// `POST /v1/tours/{id}/stops/{stopId}/media`.
public struct AttachMediaRequest: Decodable, Sendable, ValidatableRequest {
    /// The SHA-256 address of an upload (`POST /v1/media`).
    public var sha256: String

    public func validate(into validator: inout Validator) {
        validator.require(sha256.count == 64 && sha256.allSatisfy(\.isHexDigit), field: "sha256", code: "invalid-media",
                          message: "must be the SHA-256 address of an upload")
    }
}
