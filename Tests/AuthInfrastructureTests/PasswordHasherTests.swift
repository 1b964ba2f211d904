@testable import AuthInfrastructure
import Foundation
import Testing

@Suite("PasswordHasher")
struct PasswordHasherTests {
    @Test("a new hash is a 60-character $2b$ bcrypt hash with the configured cost")
    func hashFormat() async throws {
        let hasher = try PasswordHasher(maximumConcurrency: 1)
        #expect(hasher.cost == 12)
        let hash = try await hasher.hash("correct horse battery staple")
        #expect(hash.count == 60)
        #expect(hash.hasPrefix("$2b$12$"))

        let cheaper = try PasswordHasher(cost: 10, maximumConcurrency: 1)
        let cheapHash = try await cheaper.hash("correct horse battery staple")
        #expect(cheapHash.hasPrefix("$2b$10$"))
        await cheaper.shutdown()
        await hasher.shutdown()
    }

    @Test("a hash verifies its password and refuses any other")
    func verifyRightAndWrong() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 2)
        let hash = try await hasher.hash("Tr4vel-the-w0rld!")
        #expect(await hasher.verify("Tr4vel-the-w0rld!", against: hash))
        #expect(await hasher.verify("tr4vel-the-w0rld!", against: hash) == false)
        #expect(await hasher.verify("Tr4vel-the-w0rld", against: hash) == false)
        #expect(await hasher.verify("", against: hash) == false)
        let unicode = try await hasher.hash("pässwörd-ünïcode-🚲")
        #expect(await hasher.verify("pässwörd-ünïcode-🚲", against: unicode))
        await hasher.shutdown()
    }

    @Test("two hashes of the same password differ because each has its own salt")
    func saltsDiffer() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 2)
        let first = try await hasher.hash("same password")
        let second = try await hasher.hash("same password")
        #expect(first != second)
        #expect(first.prefix(29) != second.prefix(29))
        #expect(await hasher.verify("same password", against: first))
        #expect(await hasher.verify("same password", against: second))
        await hasher.shutdown()
    }

    @Test("a malformed or non-bcrypt stored hash verifies as false")
    func malformedHashes() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 1)
        let valid = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        let malformed = [
            "", "U*U", "*0", "*1",
            String(valid.dropLast()),  // truncated
            valid + "x",  // too long
            "$2x$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",  // legacy buggy variant
            "$2a$03$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",  // cost below bcrypt's range
            "$2a$32$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",  // cost above bcrypt's range
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe!",  // outside the alphabet
            "$1$saltsalt$qjXMvbEw8oaL.CzflDugX/",  // MD5-crypt
            "$6$saltsalt$qFmFH.bQmmtXzyBY0s9v7Oicd2z4XSIecDzlB5KiA2/jctKu9YterLp8wwnSq.qc.eoxqOmSuNp2xS0ktL3nh/",  // SHA-512
            "abJnggxhB/yWI",  // DES
        ]
        for hash in malformed {
            #expect(await hasher.verify("U*U", against: hash) == false, "\(hash)")
        }
        await hasher.shutdown()
    }

    @Test("published bcrypt test vectors verify, including cost 5 and $2a$ hashes")
    func knownVectors() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 2)
        // From OpenWall's crypt_blowfish test vectors, also used by libxcrypt's test suite.
        let vectors = [
            ("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"),
            ("U*U*", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"),
            ("U*U*U", "$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a"),
            ("", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy"),
        ]
        for (password, hash) in vectors {
            #expect(await hasher.verify(password, against: hash), "\(hash)")
            #expect(Bcrypt.crypt(password, setting: hash) == hash)
            #expect(await hasher.verify(password + "x", against: hash) == false)
        }
        await hasher.shutdown()
    }

    @Test("costs outside 10...31 and a concurrency below 1 are refused")
    func invalidConfiguration() throws {
        #expect(throws: PasswordHasherError.invalidCost(9)) { try PasswordHasher(cost: 9) }
        #expect(throws: PasswordHasherError.invalidCost(32)) { try PasswordHasher(cost: 32) }
        #expect(throws: PasswordHasherError.invalidConcurrency(0)) { try PasswordHasher(cost: 10, maximumConcurrency: 0) }
    }

    @Test("only the first 72 bytes of a password count (a documented bcrypt limit)")
    func seventyTwoByteLimit() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 1)
        let prefix = String(repeating: "a", count: PasswordHasher.significantPasswordBytes)
        let hash = try await hasher.hash(prefix + "first ending")
        #expect(await hasher.verify(prefix + "another ending", against: hash))
        #expect(await hasher.verify(String(prefix.dropLast()) + "b", against: hash) == false)
        // A 128-character password (the domain's maximum) hashes and verifies.
        let longest = String(repeating: "x", count: 128)
        #expect(await hasher.verify(longest, against: try await hasher.hash(longest)))
        await hasher.shutdown()
    }

    @Test("a password containing NUL is refused rather than silently truncated")
    func nulCharacter() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 1)
        await #expect(throws: PasswordHasherError.passwordContainsNUL) { try await hasher.hash("abc\0def") }
        let hash = try await hasher.hash("abc")
        #expect(await hasher.verify("abc\0def", against: hash) == false)
        await hasher.shutdown()
    }

    @Test("eight concurrent hashes with maximumConcurrency 2 all succeed and never run more than 2 at once")
    func boundedConcurrency() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 2)
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<8 {
                group.addTask { (index, try await hasher.hash("password \(index)")) }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 8)
        for (index, hash) in results {
            #expect(await hasher.verify("password \(index)", against: hash))
        }
        #expect(hasher.workers.peakInFlight <= 2)
        #expect(hasher.workers.peakInFlight >= 1)
        #expect(hasher.workers.completed == 16)
        await hasher.shutdown()
    }

    @Test("a dummy verification takes about as long as a real one")
    func dummyTiming() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 1)
        let hash = try await hasher.hash("the real password")
        let clock = ContinuousClock()
        var real: [Duration] = []
        var dummy: [Duration] = []
        for _ in 0..<5 {
            real.append(await clock.measure { _ = await hasher.verify("a wrong password", against: hash) })
            dummy.append(await clock.measure { await hasher.verifyAgainstDummy("a wrong password") })
        }
        let ratio = median(dummy) / median(real)
        #expect(ratio > 0.3 && ratio < 3, "dummy/real = \(ratio)")
        await hasher.shutdown()
    }

    @Test("after shutdown hashing throws and verification answers false")
    func shutdown() async throws {
        let hasher = try PasswordHasher(cost: 10, maximumConcurrency: 1)
        let hash = try await hasher.hash("password")
        await hasher.shutdown()
        await hasher.shutdown()
        await #expect(throws: PasswordHasherError.shutDown) { try await hasher.hash("password") }
        #expect(await hasher.verify("password", against: hash) == false)
    }

    private func median(_ durations: [Duration]) -> Double {
        let sorted = durations.sorted()
        let middle = sorted[sorted.count / 2]
        return Double(middle.components.seconds) + Double(middle.components.attoseconds) / 1e18
    }
}
