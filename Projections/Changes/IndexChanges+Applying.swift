/// Applies index changes to a list in one pass, with UIKit's batch-update meaning:
/// removals and move sources at old indices, insertions and move destinations at new
/// indices, then updates by id (the element at an updated id's new index is taken from
/// the new list).
///
/// Equivalent to removing in descending old order and inserting in ascending new order,
/// without the O(*n*) shift of each `remove(at:)` and `insert(_:at:)`.
/// - Complexity: O(*n* + *k*) for *n* elements and *k* changes.
func applyIndexChanges<Element, ID: Hashable>(
    to old: [Element], removals: [Int], insertions: [Int], moves: [ChangeSet.Move], updates: [ID],
    id: (Element) -> ID, newElement: (Int) -> Element
) -> [Element] {
    var leaving = Set(removals)
    var arrivals: [Int: Element] = [:]
    for index in insertions { arrivals[index] = newElement(index) }
    for move in moves {
        leaving.insert(move.from)
        arrivals[move.to] = old[move.from]
    }
    let newCount = old.count - leaving.count + arrivals.count
    var result: [Element] = []
    result.reserveCapacity(newCount)
    var next = 0
    for index in 0..<newCount {
        if let arrived = arrivals[index] {
            result.append(arrived)
            continue
        }
        while leaving.contains(next) { next += 1 }
        result.append(old[next])
        next += 1
    }
    if !updates.isEmpty {
        let wanted = Set(updates)
        for index in result.indices where wanted.contains(id(result[index])) { result[index] = newElement(index) }
    }
    return result
}
