/// Status strings for people, as `localizedNetworkReachabilityStatusString` gives them in AFNetworking.
///
/// ```swift
/// NetworkReachabilityStatus.reachableViaWiFi.localizedString(in: .simplifiedChinese)   // "通过 WiFi 连接"
/// NetworkReachabilityStatus.notReachable.localizedString(environment: ["LANG": "de_DE.UTF-8"])
///     // "Not Reachable"
/// ```
extension NetworkReachabilityStatus {
    /// The string in `language`; English is AFNetworking's own wording (`string`).
    public func localizedString(in language: ReachabilityLanguage) -> String {
        switch language {
        case .english:
            string
        case .simplifiedChinese:
            switch self {
            case .unknown: "未知"
            case .notReachable: "无法连接网络"
            case .reachableViaWWAN: "通过蜂窝网络连接"
            case .reachableViaWiFi: "通过 WiFi 连接"
            }
        }
    }

    /// The string in the language the environment's locale asks for (see `ReachabilityLanguage`).
    public func localizedString(environment: [String: String]) -> String {
        localizedString(in: ReachabilityLanguage(environment: environment))
    }
}
