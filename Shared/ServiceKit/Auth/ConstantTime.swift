/// Comparisons whose duration does not depend on where two secrets differ.
public enum ConstantTime {
    /// Whether `lhs` equals `rhs`, looking at every byte of `rhs` whatever the content of `lhs`.
    ///
    /// Only the length of the expected secret (`rhs`) can leak through timing.
    @inline(never)
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        let presented = Array(lhs)
        var difference: UInt8 = presented.count == rhs.count ? 0 : 1
        for (index, expected) in rhs.enumerated() {
            let actual = index < presented.count ? presented[index] : ~expected
            difference |= actual ^ expected
        }
        return difference == 0
    }

    /// Whether the UTF-8 of `presented` equals that of `expected` (hashes, tokens), in time independent of the content.
    public static func equals(_ presented: String, _ expected: String) -> Bool {
        equals(presented.utf8, expected.utf8)
    }
}
