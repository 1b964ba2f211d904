import Contracts
import Foundation

/// The one JSON configuration for event payloads and everything that carries events: `ContractJSON`'s wire format —
/// sorted keys (stable bytes, so idempotent retries compare equal) and RFC 3339 UTC dates at microsecond precision
/// (the stores' precision), so timestamps survive every hop unchanged.
public enum EventJSON {
    /// Encodes a payload to canonical JSON bytes.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try ContractJSON.encode(value)
    }

    /// Decodes a payload from JSON bytes.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try ContractJSON.decode(type, from: data)
    }
}
