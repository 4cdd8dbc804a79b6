import ReachdCore
import Testing

@Suite("NetworkManager's enums, mirrored with every value")
struct NetworkManagerEnumTests {
    @Test func stateValuesAndNames() {
        let expected: [(NMState, UInt32, String)] = [
            (.unknown, 0, "UNKNOWN"), (.asleep, 10, "ASLEEP"), (.disconnected, 20, "DISCONNECTED"),
            (.disconnecting, 30, "DISCONNECTING"), (.connecting, 40, "CONNECTING"),
            (.connectedLocal, 50, "CONNECTED_LOCAL"), (.connectedSite, 60, "CONNECTED_SITE"),
            (.connectedGlobal, 70, "CONNECTED_GLOBAL"),
        ]
        #expect(NMState.allKnown == expected.map(\.0))
        for (value, raw, name) in expected {
            #expect(value.rawValue == raw)
            #expect(value.description == name)
        }
    }

    @Test func connectivityValuesAndNames() {
        let expected: [(NMConnectivityState, UInt32, String)] = [
            (.unknown, 0, "UNKNOWN"), (.none, 1, "NONE"), (.portal, 2, "PORTAL"), (.limited, 3, "LIMITED"),
            (.full, 4, "FULL"),
        ]
        #expect(NMConnectivityState.allKnown == expected.map(\.0))
        for (value, raw, name) in expected {
            #expect(value.rawValue == raw)
            #expect(value.description == name)
        }
    }

    @Test func deviceTypeValuesAndNames() {
        let expected: [(NMDeviceType, UInt32, String)] = [
            (.unknown, 0, "UNKNOWN"), (.ethernet, 1, "ETHERNET"), (.wifi, 2, "WIFI"), (.unused1, 3, "UNUSED1"),
            (.unused2, 4, "UNUSED2"), (.bt, 5, "BT"), (.olpcMesh, 6, "OLPC_MESH"), (.wimax, 7, "WIMAX"),
            (.modem, 8, "MODEM"), (.infiniband, 9, "INFINIBAND"), (.bond, 10, "BOND"), (.vlan, 11, "VLAN"),
            (.adsl, 12, "ADSL"), (.bridge, 13, "BRIDGE"), (.generic, 14, "GENERIC"), (.team, 15, "TEAM"),
            (.tun, 16, "TUN"), (.ipTunnel, 17, "IP_TUNNEL"), (.macvlan, 18, "MACVLAN"), (.vxlan, 19, "VXLAN"),
            (.veth, 20, "VETH"), (.macsec, 21, "MACSEC"), (.dummy, 22, "DUMMY"), (.ppp, 23, "PPP"),
            (.ovsInterface, 24, "OVS_INTERFACE"), (.ovsPort, 25, "OVS_PORT"), (.ovsBridge, 26, "OVS_BRIDGE"),
            (.wpan, 27, "WPAN"), (.sixLowPAN, 28, "6LOWPAN"), (.wireguard, 29, "WIREGUARD"),
            (.wifiP2P, 30, "WIFI_P2P"), (.vrf, 31, "VRF"), (.loopback, 32, "LOOPBACK"), (.hsr, 33, "HSR"),
            (.ipvlan, 34, "IPVLAN"),
        ]
        #expect(NMDeviceType.allKnown == expected.map(\.0))
        for (value, raw, name) in expected {
            #expect(value.rawValue == raw)
            #expect(value.description == name)
        }
    }

    @Test func meteredValuesAndNames() {
        let expected: [(NMMetered, UInt32, String)] = [
            (.unknown, 0, "UNKNOWN"), (.yes, 1, "YES"), (.no, 2, "NO"), (.guessYes, 3, "GUESS_YES"),
            (.guessNo, 4, "GUESS_NO"),
        ]
        #expect(NMMetered.allKnown == expected.map(\.0))
        for (value, raw, name) in expected {
            #expect(value.rawValue == raw)
            #expect(value.description == name)
        }
    }

    @Test func valuesFromANewerNetworkManagerSurvive() {
        let state = NMState(rawValue: 45)
        #expect(state.rawValue == 45)
        #expect(state.name == nil)
        #expect(state.description == "NMState(45)")
        #expect(!NMState.allKnown.contains(state))
        #expect(NMDeviceType(rawValue: 35).description == "NMDeviceType(35)")
        #expect(NMConnectivityState(rawValue: 9).description == "NMConnectivityState(9)")
        #expect(NMMetered(rawValue: 7).description == "NMMetered(7)")
    }

    @Test("Connectivity from NetworkManager's", arguments: [
        (NMConnectivityState.unknown, Connectivity.unknown),
        (.none, .none),
        (.portal, .portal),
        (.limited, .limited),
        (.full, .full),
        (NMConnectivityState(rawValue: 9), .unknown),
    ] as [(NMConnectivityState, Connectivity)])
    func connectivityFromNetworkManager(state: NMConnectivityState, published: Connectivity) {
        #expect(Connectivity(state) == published)
    }

    @Test func publishedStringsAreTheContractsSpelling() {
        #expect(InterfaceType.allCases.map(\.rawValue)
            == ["wifi", "wwan", "ethernet", "vpn", "bluetooth", "other", "none"])
        #expect(Connectivity.allCases.map(\.rawValue) == ["unknown", "none", "portal", "limited", "full"])
        #expect(Backend.allCases.map(\.rawValue) == ["networkmanager", "netlink", "systemd-networkd", "connman"])
    }
}
