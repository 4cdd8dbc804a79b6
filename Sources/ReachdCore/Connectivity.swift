/// NetworkManager's connectivity check result as reachd publishes it: the D-Bus `Connectivity` property
/// (`s`, the raw value).
///
/// ```swift
/// Connectivity(NMConnectivityState.portal)   // .portal
/// Connectivity.full.rawValue                  // "full"
/// ```
public enum Connectivity: String, Sendable, CaseIterable {
    /// No check ran, or the backend has none (the kernel backend always says `unknown`).
    case unknown
    case none
    /// A captive portal intercepts traffic; published flags then carry `InterventionRequired`.
    case portal
    case limited
    case full

    /// The published form of NetworkManager's value; a value this version does not know is `unknown`,
    /// which claims nothing.
    public init(_ state: NMConnectivityState) {
        switch state {
        case .none: self = .none
        case .portal: self = .portal
        case .limited: self = .limited
        case .full: self = .full
        default: self = .unknown
        }
    }
}
