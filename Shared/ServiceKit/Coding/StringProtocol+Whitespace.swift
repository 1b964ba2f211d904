extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP optional whitespace).
    func trimmingWhitespace() -> SubSequence {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}
