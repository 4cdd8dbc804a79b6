import ReachdCore
import Testing

/// Whether `Level` `online` can still come (contract 6, §2): `reachctl wait --level online` exits
/// 5 only where it provably cannot, and waits wherever a check runs, even one that has not
/// answered, and wherever no source has answered yet.
@Suite("Which connectivity checks run, and whether online can hold")
struct OnlineOutlookTests {
    static let checking = NetworkManagerSnapshot(state: .connectedGlobal, connectivityCheckEnabled: true,
                                                 connectivityCheckAvailable: true)
    static let notChecking = NetworkManagerSnapshot(state: .connectedGlobal, connectivityCheckEnabled: true,
                                                    connectivityCheckAvailable: false)
    static let ready = ConnManSnapshot(state: "ready")

    @Test("the runners table", arguments: [
        // NetworkManager, ConnMan, reachd's URI → runners
        (checking, nil, false, [ConnectivityCheckRunner.networkManager]),
        (checking, nil, true, [.networkManager]),  // reachd's own check does not run beside NetworkManager's
        (checking, ready, true, [.networkManager]),  // ConnMan does not decide while NetworkManager runs
        (notChecking, nil, false, []),
        (notChecking, nil, true, [.reachd]),
        (notChecking, ready, false, []),
        (nil, ready, false, [.connman]),  // ConnMan `ready`: its check may still say online
        (nil, ready, true, [.connman, .reachd]),
        (nil, nil, false, []),  // systemd-networkd or the kernel alone
        (nil, nil, true, [.reachd]),
    ] as [(NetworkManagerSnapshot?, ConnManSnapshot?, Bool, [ConnectivityCheckRunner])])
    func runners(networkManager: NetworkManagerSnapshot?, connman: ConnManSnapshot?, uri: Bool,
                 expected: [ConnectivityCheckRunner]) {
        #expect(ConnectivityCheckRunner.running(networkManager: networkManager, connman: connman,
                                                reachdCheckConfigured: uri) == expected)
    }

    @Test("the online-can-hold table", arguments: [
        // status, backend, runners, checked, pending → can hold
        (NetworkReachabilityStatus.unknown, nil, [], false, false, true),  // boot: nothing answered yet
        (.unknown, Backend.networkmanager, nil, false, false, true),
        (.notReachable, .connman, [.connman], false, false, true),  // ConnMan connecting or `ready`
        (.reachableViaWiFi, .connman, [.connman], false, false, true),
        (.reachableViaWiFi, .networkmanager, [.networkManager], false, false, true),  // NetworkManager's check pending
        (.notReachable, .netlink, [.reachd], false, false, true),  // reachd's own check on, no path yet
        (.reachableViaWiFi, .networkmanager, [], false, false, false),  // NetworkManager's check off
        (.notReachable, .networkmanager, [], false, false, false),
        (.reachableViaWiFi, .systemdNetworkd, [], false, false, false),
        (.reachableViaWiFi, .netlink, [], false, false, true),  // the kernel alone, with a path: a daemon may start (boot)
        (.notReachable, .netlink, [], false, false, true),  // the kernel alone, no path: a daemon may start
        (.reachableViaWiFi, .networkmanager, nil, false, false, false),  // an older reachd: its facts as before
        (.reachableViaWiFi, .networkmanager, nil, false, true, true),
        (.reachableViaWiFi, .networkmanager, nil, true, false, true),
    ] as [(NetworkReachabilityStatus, Backend?, [ConnectivityCheckRunner]?, Bool, Bool, Bool)])
    func canHold(status: NetworkReachabilityStatus, backend: Backend?, runners: [ConnectivityCheckRunner]?,
                 checked: Bool, pending: Bool, expected: Bool) {
        #expect(ConnectivityCheckRunner.onlineCanHold(status: status, backend: backend, runners: runners,
                                                      checked: checked, pending: pending) == expected)
    }

    /// A boot: reachd is activated before NetworkManager or ConnMan, and only the kernel answers;
    /// where no system bus can be watched, no daemon can ever come.
    @Test func theKernelAloneProvesNothingWhileASystemBusIsWatched() {
        for status in [NetworkReachabilityStatus.reachableViaWiFi, .notReachable] {
            #expect(ConnectivityCheckRunner.onlineCanHold(status: status, backend: .netlink, runners: [], checked: false,
                                                          pending: false, systemBusWatched: true))
            #expect(!ConnectivityCheckRunner.onlineCanHold(status: status, backend: .netlink, runners: [], checked: false,
                                                           pending: false, systemBusWatched: false))
            #expect(ConnectivityCheckRunner.onlineCanHold(status: status, backend: .netlink, runners: [.reachd], checked: false,
                                                          pending: false, systemBusWatched: false), "reachd's own check runs")
        }
    }
}
