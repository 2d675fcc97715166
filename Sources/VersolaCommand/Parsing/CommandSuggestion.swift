/// "Did you mean …" for a mistyped command name.
enum CommandSuggestion {
    /// The message for `typed`, which names no command: with the closest command when one is
    /// near enough to be a typo.
    static func unknownCommand(_ typed: String) -> String {
        guard let near = closest(to: typed) else { return "unknown command '\(typed)' (versola --help lists them)" }
        return "unknown command '\(typed)'; did you mean '\(near)'?"
    }

    /// The name (a command's, or a flag's among `names`) at the smallest edit distance from
    /// `typed`, when that distance is at most a third of the name (at least 1), or the command
    /// name starts with what was typed.
    static func closest(to typed: String, among names: [String] = CommandName.allCases.map(\.rawValue)) -> String? {
        let lowered = typed.lowercased()
        if lowered.count >= 3, !lowered.hasPrefix("-"), let prefixed = names.first(where: { $0.hasPrefix(lowered) }) { return prefixed }
        let scored = names.map { (name: $0, distance: distance(Array(lowered), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        return best.distance <= max(1, best.name.count / 3) ? best.name : nil
    }

    /// The Levenshtein distance, with a swap of two neighbours counted as one edit.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, rows[i - 2][j - 2] + 1) }
                rows[i][j] = best
            }
        }
        return rows[a.count][b.count]
    }
}
