/// Checks a log's records against the domain rules, as replay does.
///
/// A fact the decider would refuse (closing a range that is not open, an unknown event,
/// …) makes the log invalid; the failure names the record's line.
package enum LogValidator {
    /// Folds `contents` into domain state, or throws the first record that breaks a rule.
    /// - Parameter upTo: replay only the records up to this position.
    package static func validate(_ contents: LogReader.Contents, upTo: Int64? = nil) throws(LogReader.Failure) -> DomainState {
        var state = DomainState()
        for (index, record) in contents.records.enumerated() {
            if let upTo, record.position > upTo { break }
            for fact in record.facts {
                do {
                    try Decider.check(fact, in: state)
                } catch {
                    throw LogReader.Failure(line: contents.lineNumbers[index], offset: contents.offsets[index],
                                            reason: "\(fact.type.rawValue): \(error.description)")
                }
                state.apply(fact)
            }
        }
        return state
    }
}
