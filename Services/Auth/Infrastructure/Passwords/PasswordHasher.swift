import Foundation
import ServiceKit
import Synchronization

/// bcrypt password hashing through libxcrypt (`crypt_gensalt_rn` / `crypt_rn`), off the cooperative pool.
///
/// - New hashes are `$2b$` with the configured ``cost`` (10–31, default 12) and a 128-bit salt from
///   `SystemRandomNumberGenerator`: 60 characters such as `$2b$12$…`. Plain bcrypt is kept on purpose (no
///   pre-hashing), so stored hashes stay readable by any bcrypt implementation.
/// - **Only the first 72 bytes of a password count** (a bcrypt limit): two passwords that share their first
///   72 UTF-8 bytes verify against each other's hash. The domain allows up to 128 characters; ASCII passwords
///   up to 72 characters are therefore used in full, longer or multi-byte ones are truncated by bcrypt.
/// - ``verify(_:against:)`` accepts existing `$2a$`, `$2b$` and `$2y$` hashes of any cost 04–31, recomputes the
///   hash and compares it in constant time.
///
/// **Threads.** bcrypt blocks a thread for tens to hundreds of milliseconds (cost 12 ≈ 250 ms), so every hash runs
/// on a dedicated pool of ``maximumConcurrency`` threads owned by this hasher (and its copies), never on the Swift
/// cooperative pool or a NIO event loop. Callers beyond that bound wait in FIFO order. Call ``shutdown()`` when the
/// service stops; if it is never called, the threads end once the last copy of the hasher is released.
public struct PasswordHasher: Sendable {
    /// Costs accepted for new hashes.
    public static let allowedCosts = 10...31
    /// Number of leading password bytes (UTF-8) that bcrypt uses; the rest is ignored.
    public static let significantPasswordBytes = 72

    /// The bcrypt cost (log₂ of the rounds) of new hashes.
    public let cost: Int
    /// How many hashes may run at once; further callers wait.
    public let maximumConcurrency: Int

    let workers: BcryptWorkers
    private let counter = BcryptComputationCounter()

    /// bcrypt computations this hasher (and its copies) ran: what makes an unknown-account login cost the same as a
    /// wrong password is that both run exactly one, at ``cost``.
    public var computations: Int { counter.value.load(ordering: .relaxed) }
    /// A setting of this cost with a random salt: hashing with it costs exactly what verifying a real hash does.
    private let dummySetting: String

    /// Creates a hasher with its own `maximumConcurrency` threads.
    ///
    /// - Throws: ``PasswordHasherError/invalidCost(_:)`` outside ``allowedCosts``,
    ///   ``PasswordHasherError/invalidConcurrency(_:)`` below 1.
    public init(cost: Int = 12, maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount) throws {
        guard Self.allowedCosts.contains(cost) else { throw PasswordHasherError.invalidCost(cost) }
        guard maximumConcurrency >= 1 else { throw PasswordHasherError.invalidConcurrency(maximumConcurrency) }
        self.cost = cost
        self.maximumConcurrency = maximumConcurrency
        // Generating a setting does not hash anything, so this is cheap enough for an initialiser.
        self.dummySetting = try Bcrypt.makeSetting(cost: cost)
        self.workers = BcryptWorkers(threadCount: maximumConcurrency)
    }

    /// A new bcrypt hash of `password` (`$2b$<cost>$<salt><hash>`, 60 characters), with a fresh random salt.
    ///
    /// - Throws: ``PasswordHasherError/passwordContainsNUL`` for a password with a NUL character,
    ///   ``PasswordHasherError/hashingFailed`` when libxcrypt refuses it, ``PasswordHasherError/shutDown``.
    public func hash(_ password: String) async throws -> String {
        guard !password.utf8.contains(0) else { throw PasswordHasherError.passwordContainsNUL }
        let cost = cost
        let counter = counter
        return try await workers.run {
            counter.value.add(1, ordering: .relaxed)
            let setting = try Bcrypt.makeSetting(cost: cost)
            guard let hash = Bcrypt.crypt(password, setting: setting), hash.utf8.count == Bcrypt.hashLength else {
                throw PasswordHasherError.hashingFailed
            }
            return hash
        }
    }

    /// Whether `password` matches the stored bcrypt `hash`.
    ///
    /// A malformed or non-bcrypt stored hash, a password with a NUL character, or a shut-down hasher all give
    /// `false`. The recomputed hash is compared with the stored one in constant time.
    public func verify(_ password: String, against hash: String) async -> Bool {
        guard Bcrypt.isWellFormedHash(hash), !password.utf8.contains(0) else { return false }
        let counter = counter
        return (try? await workers.run {
            counter.value.add(1, ordering: .relaxed)
            guard let computed = Bcrypt.crypt(password, setting: hash) else { return false }
            return ConstantTime.equals(computed, hash)
        }) ?? false
    }

    /// Does the work of one ``verify(_:against:)`` at this hasher's ``cost`` and discards the result.
    ///
    /// Call it when a login names an unknown account, so that the answer takes as long as for a wrong password
    /// and response times do not reveal which e-mail addresses are registered. Instead of a lazily computed dummy
    /// hash it hashes with a setting of the same cost prepared at initialisation; bcrypt reads only the setting of a
    /// stored hash, so the work is identical and even the first call costs one hash, not two.
    public func verifyAgainstDummy(_ password: String) async {
        let setting = dummySetting
        let counter = counter
        _ = try? await workers.run {
            counter.value.add(1, ordering: .relaxed)
            let computed = Bcrypt.crypt(password, setting: setting) ?? ""
            return ConstantTime.equals(computed, setting)
        }
    }

    /// Stops the hashing threads after the queued work; afterwards ``hash(_:)`` throws and ``verify(_:against:)``
    /// answers `false`. Shared by every copy of this hasher; calling it twice is harmless.
    public func shutdown() async {
        await workers.shutdown()
    }
}

final class BcryptComputationCounter: Sendable {
    let value = Atomic<Int>(0)
}
