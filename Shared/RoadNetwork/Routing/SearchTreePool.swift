import Foundation
import Synchronization

/// The search trees of one router, reused query after query: a request takes the trees it needs (one for a best
/// route, three with alternatives) and gives them back, so no query allocates or clears arrays of the vertex count.
///
/// Shared by concurrent requests (the router is `Sendable`): the idle trees are a free list under a `Mutex`; a
/// request that finds none allocates one. At most ``maximumIdle`` trees are kept idle — three (a request with
/// alternatives) per core, the most the cooperative thread pool runs at once.
final class SearchTreePool: Sendable {
    private struct State {
        var idle: [SearchTree] = []
        var created = 0
    }

    private let state = Mutex(State())
    /// The vertex count of the graph the trees are for.
    let vertexCount: Int
    /// Idle trees kept at most; any more given back are freed.
    let maximumIdle: Int

    init(vertexCount: Int, maximumIdle: Int = 3 * max(1, ProcessInfo.processInfo.activeProcessorCount)) {
        self.vertexCount = vertexCount
        self.maximumIdle = maximumIdle
    }

    /// How many trees this pool has allocated (tests: proof of reuse).
    var treesCreated: Int { state.withLock { $0.created } }

    /// Runs `body` with a tree reset for a new search, then keeps the tree for the next one.
    func withTree<Result>(_ body: (SearchTree) -> Result) -> Result {
        let tree = take()
        defer { giveBack(tree) }
        return body(tree)
    }

    private func take() -> SearchTree {
        let idle = state.withLock { state -> SearchTree? in
            if let tree = state.idle.popLast() { return tree }
            state.created += 1
            return nil
        }
        guard let idle else { return SearchTree(vertexCount: vertexCount) }  // allocated outside the lock
        idle.reset()
        return idle
    }

    private func giveBack(_ tree: SearchTree) {
        state.withLock { state in
            if state.idle.count < maximumIdle { state.idle.append(tree) }
        }
    }
}
