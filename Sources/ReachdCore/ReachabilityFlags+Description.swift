/// Text form of the flags, as `reachctl` prints them and as they read in logs.
///
/// Apple's names in bit order joined by `|`; the empty set is `0`; bits Apple does not define
/// are appended as one hexadecimal token (`Reachable|0x80000000`) so no information is lost.
/// The parser accepts exactly what `description` prints, and also `""` (empty) and spaces
/// around the whole string and around each name.
///
/// ```swift
/// ReachabilityFlags([.reachable, .isDirect]).description   // "Reachable|IsDirect"
/// ReachabilityFlags(description: " Reachable | IsWWAN ")    // [.reachable, .isWWAN]
/// ReachabilityFlags(description: "Reachabel")               // nil
/// ```
extension ReachabilityFlags: CustomStringConvertible {
    public var description: String {
        var tokens = names
        let unknownBits = rawValue & ~Self.allKnown.rawValue
        if unknownBits != 0 {
            tokens.append("0x" + String(unknownBits, radix: 16))
        }
        return tokens.isEmpty ? "0" : tokens.joined(separator: "|")
    }

    /// Parses `description`'s output; `nil` for any token that is not a flag name or `0x` hex number.
    public init?(description: String) {
        let text = Self.trimmingSpaces(Substring(description))
        if text.isEmpty || text == "0" {
            self = []
            return
        }
        var flags: ReachabilityFlags = []
        for rawToken in text.split(separator: "|", omittingEmptySubsequences: false) {
            let token = Self.trimmingSpaces(rawToken)
            if let known = Self.named.first(where: { $0.name == token }) {
                flags.insert(known.flag)
            } else if token.hasPrefix("0x"), token.count > 2,
                      token.dropFirst(2).allSatisfy(\.isHexDigit),
                      let bits = UInt32(token.dropFirst(2), radix: 16) {
                flags.insert(ReachabilityFlags(rawValue: bits))
            } else {
                return nil
            }
        }
        self = flags
    }

    /// Only the standard library is available here (no Foundation), so trimming is done by hand.
    static func trimmingSpaces(_ text: Substring) -> Substring {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
              let last = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return text[first...last]
    }
}
