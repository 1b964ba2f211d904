import Synchronization

/// The random bits of request ids, trace ids and span ids: xoshiro256** seeded from the system's generator
/// (`getrandom(2)`) and reseeded from it every 4,096 draws.
///
/// `SystemRandomNumberGenerator` makes one system call per 64 bits; a request took eleven of them (its context's
/// id and trace, the tracing middleware's, the child span sent upstream) — a few percent of what the gateway spends
/// on a proxied request. These ids must be unique and unguessable enough for tracing (W3C Trace Context asks for
/// random trace ids), not secrets: tokens and keys keep using the system's generator (``UUID/v4()``).
struct IdentifierGenerator: RandomNumberGenerator {
    private static let state = Mutex(State())

    private struct State {
        var s0: UInt64 = 0, s1: UInt64 = 0, s2: UInt64 = 0, s3: UInt64 = 0
        var left = 0

        mutating func next() -> UInt64 {
            if left == 0 {
                var system = SystemRandomNumberGenerator()
                repeat {
                    s0 = system.next(); s1 = system.next(); s2 = system.next(); s3 = system.next()
                } while s0 | s1 | s2 | s3 == 0
                left = 4_096
            }
            left -= 1
            let result = rotate(s1 &* 5, 7) &* 9
            let t = s1 << 17
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = rotate(s3, 45)
            return result
        }

        private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
    }

    mutating func next() -> UInt64 {
        Self.state.withLock { $0.next() }
    }
}
