import AsyncAlgorithms
import Hummingbird
import Metrics
import NIOCore
import ServiceKit
import Synchronization

/// The client's request body on its way upstream, read by exactly one task that the gateway owns and ends.
///
/// Hummingbird's request body is a view of the connection's inbound stream, and that stream allows one waiting
/// reader at a time: when the handler returns, the server reads on from the same stream to skip what is left of the
/// body and find the next request. Handing the body straight to the HTTP client made the client's upload task a
/// second reader that the gateway did not control: when the upstream answered before the upload was done (401, 403,
/// 413 to a large anonymous upload), the answer was written and the server began its own read while the upload task
/// was still waiting in `next()` — and NIO stops the process on a second waiting reader. The relay closes that class:
///
/// - one task of the relay reads the client's body and passes each chunk on through a channel with back-pressure
///   (``upstreamBody``, what the HTTP client reads; a chunk is read from the client only when the upstream took the
///   one before);
/// - ``finish(drainFor:drainBytes:)`` — called once the answer has been written, or when the call failed — releases
///   the reader, drops what the client still sends for a while — up to 10 s and 32 MiB, like nginx's lingering close:
///   a client that is still uploading when the answer arrives (many read it only after sending everything) gets it
///   whole, and a keep-alive connection stays usable — and then cancels the read, which closes the connection; it
///   returns only when the task has ended, so nobody but the server reads the connection afterwards.
final class RequestBodyRelay: Sendable {
    /// What the upstream call reads: the client's chunks, in order; fails with the client's body error.
    let upstreamBody: AsyncThrowingChannel<ByteBuffer, any Error>
    private let reader: Task<Void, Never>
    private let state: LockedState

    private final class LockedState: Sendable {
        let mutex = Mutex(State())
        func withLock<T>(_ body: (inout State) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    private struct State {
        /// Chunks are read and dropped instead of passed on.
        var discarding = false
        /// Bytes dropped since discarding began.
        var discarded = 0
        /// The most to drop before the read is cancelled.
        var discardLimit = Int.max
    }

    /// Starts reading `body`; how it fails — the body limit's 413, or the client breaking the upload off — is noted in
    /// `failure` for the answer (and kept out of the upstream's circuit breaker).
    init(body: RequestBody, failure: BodyFailure, gauge: RelayGauge) {
        let channel = AsyncThrowingChannel<ByteBuffer, any Error>()
        let state = LockedState()
        upstreamBody = channel
        self.state = state
        gauge.live.add(1, ordering: .relaxed)
        reader = Task {
            defer { gauge.live.subtract(1, ordering: .relaxed) }
            do {
                for try await chunk in body {
                    let pass = state.withLock { state -> Bool? in
                        guard state.discarding else { return true }
                        state.discarded += chunk.readableBytes
                        return state.discarded > state.discardLimit ? nil : false
                    }
                    switch pass {
                    case true?: await channel.send(chunk)
                    case false?: continue
                    case nil: return  // dropped enough: stop reading, the connection closes
                    }
                }
                channel.finish()
            } catch {
                // The client's side failed (the body limit's 413, or the client went away): not the upstream's fault.
                failure.record(error as? Problem ?? Problem.badRequest("The request body broke off before it was complete.",
                                                                        code: "incomplete-body"))
                channel.fail(error)
            }
        }
    }

    /// An answer that was never written (the client was gone before its head could be) drops the relay without
    /// ``finish(drainFor:drainBytes:)``: the reader may then wait on an upstream that stopped reading. It is cancelled
    /// here. The server does not read the connection again after such a failed write, so this cannot make two readers.
    deinit {
        reader.cancel()
        upstreamBody.finish()
    }

    /// Whether ``finish(drainFor:drainBytes:)`` has begun: ``upstreamBody`` may then end before the client's body did.
    var isFinishing: Bool { state.withLock { $0.discarding } }

    /// Ends the relay and returns when its reading task has ended. What the client still sends is read and dropped
    /// for up to `drainFor` and `drainBytes` (the connection can then carry the next request); after that the read is
    /// cancelled, which closes the connection once the answer is out. Safe to call more than once.
    func finish(drainFor: Duration = .seconds(10), drainBytes: Int = 32 << 20) async {
        state.withLock {
            if !$0.discarding {
                $0.discarding = true
                $0.discardLimit = drainBytes
            }
        }
        upstreamBody.finish()  // releases a chunk waiting for an upstream that stopped reading
        let reader = reader
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await reader.value }
            group.addTask { try? await Task.sleep(for: drainFor) }
            await group.next()
            reader.cancel()
            group.cancelAll()
        }
        await reader.value
    }
}

/// How many of one gateway's relays are still reading: 0 whenever none of its requests with a body is in flight.
final class RelayGauge: Sendable {
    let live = Atomic<Int>(0)
}

extension ResponseBody {
    /// `sequence` written to the client; then `relay` is finished (also when writing fails), so the client's request
    /// body is never read by anyone else once the answer is out.
    static func relaying<S: AsyncSequence & Sendable>(_ sequence: S, finishing relay: RequestBodyRelay?) -> ResponseBody
    where S.Element == ByteBuffer {
        guard let relay else { return ResponseBody(asyncSequence: sequence) }
        return ResponseBody { writer in
            do {
                for try await buffer in sequence { try await writer.write(buffer) }
                try await writer.finish(nil)
            } catch {
                await relay.finish()
                throw error
            }
            await relay.finish()
        }
    }
}
