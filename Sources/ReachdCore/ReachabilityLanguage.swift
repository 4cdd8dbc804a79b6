/// The languages reachd's status strings come in.
///
/// Chosen from the environment the way POSIX chooses the message locale: the first non-empty
/// of `LC_ALL`, `LC_MESSAGES`, `LANG`. GNU's `LANGUAGE` list is not consulted: reachd ships two
/// languages and follows the locale the user's programs already use.
///
/// ```swift
/// ReachabilityLanguage(environment: ["LANG": "zh_CN.UTF-8"])                  // .simplifiedChinese
/// ReachabilityLanguage(environment: ["LC_ALL": "C", "LANG": "zh_CN.UTF-8"])   // .english
/// ReachabilityLanguage(environment: ["LANG": "zh_TW.UTF-8"])                  // .english (no Traditional yet)
/// ```
public enum ReachabilityLanguage: String, Sendable, CaseIterable {
    case english = "en"
    case simplifiedChinese = "zh-Hans"

    /// The language for an environment such as `ProcessInfo.processInfo.environment`.
    public init(environment: [String: String]) {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .lazy
            .compactMap { environment[$0] }
            .first { !$0.isEmpty }
        self = locale.map(Self.init(localeName:)) ?? .english
    }

    /// The language for one locale name, `language[_territory][.codeset][@modifier]`.
    ///
    /// `C`, `POSIX` and every language other than Chinese give English. Chinese is Simplified unless
    /// the script is `Hant` or, with no script given, the territory is `TW`, `HK` or `MO`: those fall back
    /// to English because reachd does not ship Traditional Chinese, and Simplified would be the wrong script.
    /// `-` is accepted in place of `_` so BCP 47 tags such as `zh-Hans-CN` work too.
    public init(localeName: String) {
        // Drop the codeset and modifier; they never change the language.
        let name = localeName.split(whereSeparator: { $0 == "." || $0 == "@" }).first ?? ""
        let parts = name.split(whereSeparator: { $0 == "_" || $0 == "-" }).map { $0.lowercased() }
        guard parts.first == "zh" else {
            self = .english
            return
        }
        // An explicit script wins over the territory (zh_Hans_HK is Simplified).
        let subtags = parts.dropFirst()
        if subtags.contains("hans") {
            self = .simplifiedChinese
        } else if subtags.contains(where: { ["hant", "tw", "hk", "mo"].contains($0) }) {
            self = .english
        } else {
            self = .simplifiedChinese
        }
    }
}
