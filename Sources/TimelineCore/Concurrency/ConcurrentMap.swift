import Dispatch
import Synchronization

/// The results of `count` tasks run at the same time, as many at once as there are
/// processors, in the order of their indices: the one way the package spreads work over
/// processors and gathers it back.
/// - Complexity: O(*count*) beyond the tasks' own work.
package func concurrentMap<T: Sendable>(_ count: Int, _ task: @Sendable (Int) -> T) -> [T] {
    if count == 1 { return [task(0)] }
    let results = Mutex<[T?]>(Array(repeating: nil, count: count))
    DispatchQueue.concurrentPerform(iterations: count) { index in
        let result = task(index)
        results.withLock { $0[index] = result }
    }
    return results.withLock { results in
        // Taken out, so that the results are not copied and the mutex lets them go.
        var taken: [T?] = []
        swap(&taken, &results)
        return taken.map { $0! }
    }
}
