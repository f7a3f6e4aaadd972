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

/// The array of `element(0)`, …, `element(count - 1)`, made in `parts` runs of indices at
/// the same time: a big array without the copy of joining arrays made apart.
/// - Complexity: O(*count*) work, spread over the processors.
package func concurrentArray<T: Sendable>(count: Int, parts: Int, _ element: @Sendable (Int) -> T) -> [T] {
    guard parts > 1, count > 1 else { return (0..<count).map(element) }
    let parts = min(parts, count)
    return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        // Safe to share: each part initializes its own run of slots, the runs do not
        // overlap, and `concurrentPerform` returns only when every part is done.
        nonisolated(unsafe) let base = buffer.baseAddress!
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            for index in (part * count / parts)..<((part + 1) * count / parts) {
                (base + index).initialize(to: element(index))
            }
        }
        initialized = count
    }
}
