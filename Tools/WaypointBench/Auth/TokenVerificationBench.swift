import AuthInfrastructure
import Contracts
import Foundation
import Logging
import ServiceKit

/// Verifies real access tokens with ServiceKit's `AccessTokenVerifier`, as every service's authentication middleware
/// does: tokens issued by auth's `AccessTokenIssuer`, public keys from a `StaticKeySource` over the key ring's JWK Set.
struct TokenVerificationBench: Sendable {
    let keyRing: SigningKeyRing
    let issuer: String
    let audience: String
    let workload: AuthWorkload
    let logger: Logger

    /// Issues the tokens, then times the single-task phase (the figure) and the multi-task phase (logged only).
    func run() async throws -> Throughput {
        let tokenIssuer = AccessTokenIssuer(keyRing: keyRing, issuer: issuer, audience: audience)
        var tokens: [String] = []
        var subjects: [String] = []
        let issued = try await Throughput.measure(workload.distinctTokens) {
            for index in 0..<workload.distinctTokens {
                let subject = UUID.v4().uuidString.lowercased()
                let role: Role = index % 10 == 0 ? .guide : .traveller
                let token = try await tokenIssuer.issue(subject: subject, role: role, sessionId: UUID.v4().uuidString.lowercased())
                tokens.append(token.token)
                subjects.append(subject)
            }
        }
        logger.info("jwt issue: \(issued) tokens")
        // No verified-token cache: the figure is the full check (signature and claims) of every verification.
        let verifier = AccessTokenVerifier(
            keys: StaticKeySource(keySet: await keyRing.publishedKeySet()), issuer: issuer, audience: audience, cacheCapacity: 0)
        // Warm-up and check: every token verifies, to its own subject.
        for (token, subject) in zip(tokens, subjects) {
            let identity = try await verifier.verify(token)
            guard identity.subject == subject else {
                throw BenchmarkFailure("a token verified to subject \(identity.subject), issued for \(subject)")
            }
        }
        let single = try await verify(workload.verifications, tasks: 1, verifier: verifier, tokens: tokens)
        logger.info("jwt verify c1: \(single) verifications")
        let tasks = workload.verificationTasks
        let multi = try await verify(workload.verifications / tasks * tasks, tasks: tasks, verifier: verifier, tokens: tokens)
        logger.info("jwt verify c\(tasks): \(multi) verifications")
        return single
    }

    /// `count` verifications split over `tasks` tasks, each going round robin over the tokens from its own offset.
    private func verify(_ count: Int, tasks: Int, verifier: AccessTokenVerifier, tokens: [String]) async throws -> Throughput {
        let perTask = count / tasks
        return try await Throughput.measure(perTask * tasks) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        var index = task * tokens.count / tasks
                        for _ in 0..<perTask {
                            _ = try await verifier.verify(tokens[index])
                            index = index + 1 == tokens.count ? 0 : index + 1
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
