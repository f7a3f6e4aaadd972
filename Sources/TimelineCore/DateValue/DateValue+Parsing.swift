extension DateValue {
    /// Parses one of the accepted forms, or throws an error that quotes the text and names the rule.
    public init(parsing text: String) throws(DateValueError) {
        throw DateValueError(value: text, reason: "not implemented")
    }
}
