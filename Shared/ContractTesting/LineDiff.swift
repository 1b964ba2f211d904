/// A line-by-line diff of two texts, shown in golden-file mismatch messages.
enum LineDiff {
    /// Texts longer than this many lines are not aligned (the table would be too big);
    /// their differing tails are listed instead.
    private static let maximumAlignedLines = 2_000

    /// The lines of `expected` and `actual` prefixed with `  ` (same), `- ` (only in
    /// expected) or `+ ` (only in actual), in order.
    static func render(expected: String, actual: String) -> String {
        var old = lines(of: expected)
        var new = lines(of: actual)
        // Both files normally end with a newline; the empty line after it says nothing.
        if old.last == "", new.last == "" {
            old.removeLast()
            new.removeLast()
        }
        guard old.count <= maximumAlignedLines, new.count <= maximumAlignedLines else {
            return unaligned(old, new)
        }
        return aligned(old, new)
    }

    private static func lines(of text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// Longest-common-subsequence alignment: `common[i][j]` is the LCS length of `old[i...]` and `new[j...]`.
    private static func aligned(_ old: [Substring], _ new: [Substring]) -> String {
        var common = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var output: [String] = []
        var i = 0
        var j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                output.append("  " + old[i])
                i += 1
                j += 1
            } else if i < old.count, j == new.count || common[i + 1][j] >= common[i][j + 1] {
                output.append("- " + old[i])
                i += 1
            } else {
                output.append("+ " + new[j])
                j += 1
            }
        }
        return output.joined(separator: "\n")
    }

    private static func unaligned(_ old: [Substring], _ new: [Substring]) -> String {
        let same = zip(old, new).prefix(while: { $0 == $1 }).count
        let removed = old[same...].map { "- " + $0 }
        let added = new[same...].map { "+ " + $0 }
        return (["  … \(same) identical lines …"] + removed + added).joined(separator: "\n")
    }
}
