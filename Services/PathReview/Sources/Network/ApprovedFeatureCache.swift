import Foundation
import NIOCore
import Synchronization

/// The pre-rendered features (``ApprovedFeatureBands``) a `GET /v1/paths?bbox=` page served, kept in memory by path and
/// band: a fragment never changes while its path stays approved, so a page whose fragments are all held reads only what
/// does change — each path's condition and open-obstacle count — from the store (``ApprovedNetworkReads/states(of:)``:
/// two small columns by key instead of ~430 KiB of fragments for a 500-path page).
///
/// The fragments are held for one version of the approved network (``StreetOverlayReads/overlayVersion()``, the
/// version ``ApprovedBoxIndex`` chose the page at): approvals and retirements move it and the held fragments are
/// dropped, so a path approved again under its id is never shown with its old line. A fragment read after the version
/// moved may be held for the version before (it is then newer than the page, never older).
///
/// At most `budget` bytes of fragments are held; past it, held fragments are dropped (in no particular order) until a
/// quarter of the budget is free. A budget of 0 holds nothing: every page reads its fragments.
///
/// The paths' states (condition, open obstacles; `nil` for a path no longer approved) are held too, for one checkpoint
/// of the `approved_paths` projection (``ApprovedNetworkVersions/states``): every event it applies moves the checkpoint
/// in the transaction that changes its rows, so states read at or after a checkpoint are never older than it, and a
/// page at an unchanged checkpoint reads none (the bike map's bbox reads between two reviews). A state read after the
/// checkpoint moved may be held for the one before (newer than the page, never older), as for fragments. At most
/// ``stateLimit`` states are held; past it they are all dropped. A budget of 0 holds no states either.
final class ApprovedFeatureCache: Sendable {
    private struct Key: Hashable {
        var id: UUID
        var band: Int
    }

    private struct State {
        var version: Int64 = .min
        var fragments: [Key: ByteBuffer] = [:]
        var bytes = 0
        var statesVersion: Int64 = .min
        var states: [UUID: ApprovedPathState?] = [:]
    }

    /// The most path states held (a state is a few dozen bytes; the approved networks of the cities we serve hold
    /// thousands of paths).
    static let stateLimit = 200_000

    /// The most bytes of fragments held.
    let budget: Int
    private let state = Mutex(State())

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    /// The held fragments of `ids` in `band` for `version`, in their order (`nil` where one is not held).
    func fragments(of ids: [UUID], band: Int, version: Int64) -> [ByteBuffer?] {
        state.withLock { state in
            guard state.version == version else { return ids.map { _ in nil } }
            return ids.map { state.fragments[Key(id: $0, band: band)] }
        }
    }

    /// Holds `fragments` (path id, fragment) of `band`, read at or after `version`; a newer version drops what was held.
    func hold(_ fragments: [(UUID, ByteBuffer)], band: Int, version: Int64) {
        guard budget > 0 else { return }
        // A copy of exactly the fragment's bytes: a store's buffer is a slice of a whole message, which it would keep.
        let copies = fragments.map { ($0.0, ByteBuffer($0.1.readableBytesView)) }
        state.withLock { state in
            if version > state.version {
                state.version = version
                state.fragments = [:]
                state.bytes = 0
            }
            guard version == state.version else { return }
            for (id, fragment) in copies where fragment.readableBytes <= budget {
                let key = Key(id: id, band: band)
                if let old = state.fragments.updateValue(fragment, forKey: key) { state.bytes -= old.readableBytes }
                state.bytes += fragment.readableBytes
            }
            guard state.bytes > budget else { return }
            let target = budget - budget / 4
            var dropped: [Key] = []
            for (key, fragment) in state.fragments where state.bytes > target {
                dropped.append(key)
                state.bytes -= fragment.readableBytes
            }
            for key in dropped { state.fragments.removeValue(forKey: key) }
        }
    }

    /// The bytes held now (tests, metrics).
    var heldBytes: Int { state.withLock { $0.bytes } }

    /// The held states of `ids` at checkpoint `version`, in their order: `.some(nil)` for a path known to be no longer
    /// approved, `nil` where none is held.
    func states(of ids: [UUID], version: Int64) -> [ApprovedPathState??] {
        state.withLock { state in
            guard state.statesVersion == version else { return ids.map { _ in nil } }
            return ids.map { state.states[$0] }
        }
    }

    /// Holds `states` (path id, state or `nil` when retired), read at or after checkpoint `version`; a newer checkpoint
    /// drops what was held.
    func holdStates(_ states: [(UUID, ApprovedPathState?)], version: Int64) {
        guard budget > 0, !states.isEmpty else { return }
        state.withLock { state in
            if version > state.statesVersion {
                state.statesVersion = version
                state.states = [:]
            }
            guard version == state.statesVersion else { return }
            if state.states.count + states.count > Self.stateLimit { state.states = [:] }
            for (id, held) in states { state.states[id] = .some(held) }
        }
    }

    /// The states held now (tests).
    var heldStates: Int { state.withLock { $0.states.count } }
}

/// What an approved path's listing closes its fragment with: the current condition and open obstacles.
public struct ApprovedPathState: Sendable, Hashable {
    public var condition: String
    public var obstacleCount: Int

    public init(condition: String, obstacleCount: Int) {
        self.condition = condition
        self.obstacleCount = obstacleCount
    }
}
