import Foundation
import HTTPTypes

/// How long a finish or an import waits for the trip's analysis: the service's limit, or less when the client says so
/// in `Prefer` (RFC 7240): `respond-async` answers at once (202 while the analysis runs), `wait=N` waits at most N
/// seconds. A client never makes the service wait longer than its limit; unknown or malformed preferences are ignored.
enum FinishWait {
    static func requested(_ headers: HTTPFields, most: Duration) -> Duration {
        var wait = most
        for value in headers[values: .prefer] {
            for preference in value.split(separator: ",") {
                let token = preference.split(separator: ";", omittingEmptySubsequences: false)[0]
                let parts = token.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                if parts.first == "respond-async" { wait = .zero }
                if parts.first == "wait", parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
                   seconds >= 0 {
                    wait = min(wait, .seconds(min(seconds, 3_600)))
                }
            }
        }
        return wait
    }
}

extension HTTPField.Name {
    /// `Prefer` (RFC 7240).
    static let prefer = HTTPField.Name("Prefer")!
}
