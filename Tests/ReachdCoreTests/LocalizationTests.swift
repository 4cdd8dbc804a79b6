import ReachdCore
import Testing

@Suite("Localized status strings and the language a locale picks")
struct LocalizationTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let environment: [String: String]
        let language: ReachabilityLanguage
        var testDescription: String {
            environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    @Test("POSIX precedence LC_ALL > LC_MESSAGES > LANG, empty skipped", arguments: [
        Row(environment: [:], language: .english),
        Row(environment: ["LANG": "zh_CN.UTF-8"], language: .simplifiedChinese),
        Row(environment: ["LC_ALL": "C", "LANG": "zh_CN.UTF-8"], language: .english),
        Row(environment: ["LC_ALL": "POSIX", "LC_MESSAGES": "zh_CN.UTF-8"], language: .english),
        Row(environment: ["LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"], language: .simplifiedChinese),
        Row(environment: ["LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"], language: .simplifiedChinese),
        Row(environment: ["LC_MESSAGES": "en_GB.UTF-8", "LANG": "zh_CN.UTF-8"], language: .english),
        Row(environment: ["LC_ALL": "en_GB.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"], language: .english),
        Row(environment: ["LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "C"], language: .simplifiedChinese),
        Row(environment: ["LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"], language: .simplifiedChinese),
        Row(environment: ["LC_ALL": "", "LC_MESSAGES": "", "LANG": ""], language: .english),
        // Only the message locale counts: LC_CTYPE and GNU's LANGUAGE are not consulted.
        Row(environment: ["LC_CTYPE": "zh_CN.UTF-8"], language: .english),
        Row(environment: ["LANGUAGE": "zh_CN:zh", "LANG": "en_US.UTF-8"], language: .english),
    ] as [Row])
    func languageFollowsPosixPrecedence(row: Row) {
        #expect(ReachabilityLanguage(environment: row.environment) == row.language)
    }

    @Test("locale names", arguments: [
        ("zh_CN.UTF-8", ReachabilityLanguage.simplifiedChinese),
        ("zh_CN", .simplifiedChinese),
        ("zh_cn.utf8", .simplifiedChinese),
        ("zh_CN.GB18030", .simplifiedChinese),
        ("zh_SG.UTF-8", .simplifiedChinese),
        ("zh", .simplifiedChinese),
        ("zh_Hans", .simplifiedChinese),
        ("zh_Hans_CN.UTF-8", .simplifiedChinese),
        ("zh-Hans-CN", .simplifiedChinese),
        ("zh_Hans_HK", .simplifiedChinese),
        ("zh_TW.UTF-8", .english),
        ("zh_HK.Big5", .english),
        ("zh_MO", .english),
        ("zh_Hant_TW", .english),
        ("zh_Hant", .english),
        ("en_US.UTF-8", .english),
        ("de_DE@euro", .english),
        ("C", .english),
        ("C.UTF-8", .english),
        ("POSIX", .english),
    ] as [(String, ReachabilityLanguage)])
    func localeNamesPickTheLanguage(name: String, language: ReachabilityLanguage) {
        #expect(ReachabilityLanguage(localeName: name) == language)
    }

    @Test("strings per language", arguments: [
        (NetworkReachabilityStatus.unknown, ReachabilityLanguage.english, "Unknown"),
        (.notReachable, .english, "Not Reachable"),
        (.reachableViaWWAN, .english, "Reachable via WWAN"),
        (.reachableViaWiFi, .english, "Reachable via WiFi"),
        (.unknown, .simplifiedChinese, "未知"),
        (.notReachable, .simplifiedChinese, "无法连接网络"),
        (.reachableViaWWAN, .simplifiedChinese, "通过蜂窝网络连接"),
        (.reachableViaWiFi, .simplifiedChinese, "通过 WiFi 连接"),
    ] as [(NetworkReachabilityStatus, ReachabilityLanguage, String)])
    func localizedStrings(status: NetworkReachabilityStatus, language: ReachabilityLanguage, text: String) {
        #expect(status.localizedString(in: language) == text)
    }

    @Test func environmentConvenienceUsesTheLocale() {
        #expect(NetworkReachabilityStatus.reachableViaWWAN.localizedString(environment: ["LANG": "zh_CN.UTF-8"])
            == "通过蜂窝网络连接")
        #expect(NetworkReachabilityStatus.reachableViaWWAN.localizedString(environment: ["LANG": "zh_TW.UTF-8"])
            == "Reachable via WWAN")
        #expect(NetworkReachabilityStatus.notReachable.localizedString(environment: [:]) == "Not Reachable")
    }
}
