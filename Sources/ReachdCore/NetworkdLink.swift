/// What systemd-networkd says about one link, from its `DescribeLink` JSON (contract 3, §3.1):
/// the few facts reachd adds to the kernel's path. networkd sends no signal when that JSON
/// changes; the back end reads it again when the link's own properties change.
///
/// ```swift
/// let link = NetworkdLink(describeLinkJSON: #"{"Index":3,"Name":"wlan0","Type":"wlan","AdministrativeState":"configured","OnlineState":"online","RequiredForOnline":true}"#)
/// link?.medium          // .wifi
/// link?.isManaged       // true
/// ```
public struct NetworkdLink: Sendable, Hashable {
    /// The kernel's interface index.
    public var index: Int
    /// The kernel's interface name.
    public var name: String
    /// `Type`: udev's DEVTYPE (`wlan`, `wwan`, …), else the ARPHRD name (`ether`, `loopback`, `none`).
    public var type: String
    /// `AdministrativeState`: `pending`, `initialized`, `configuring`, `configured`, `unmanaged`,
    /// `failed`, `linger`.
    public var administrativeState: String
    /// `OperationalState`: `off`, `no-carrier`, `dormant`, `degraded-carrier`, `carrier`,
    /// `degraded`, `enslaved`, `routable`.
    public var operationalState: String
    /// `OnlineState`: `offline`, `partial`, `online`; `""` when networkd has none for the link
    /// (no `.network`, or not `RequiredForOnline`).
    public var onlineState: String
    /// `RequiredForOnline`: the link counts for networkd's `OnlineState`.
    public var requiredForOnline: Bool

    public init(index: Int, name: String, type: String = "ether", administrativeState: String = "configured",
                operationalState: String = "routable", onlineState: String = "", requiredForOnline: Bool = false) {
        self.index = index
        self.name = name
        self.type = type
        self.administrativeState = administrativeState
        self.operationalState = operationalState
        self.onlineState = onlineState
        self.requiredForOnline = requiredForOnline
    }

    /// nil unless the JSON is an object with `Index` and `Name`; absent states read as `""`
    /// (`OnlineState` is `null` for a link networkd does not manage).
    public init?(describeLinkJSON text: String) {
        guard let json = JSONObjectReader(text), let index = json.integer("Index"), let name = json.string("Name") else {
            return nil
        }
        self.init(index: index, name: name, type: json.string("Type") ?? "",
                  administrativeState: json.string("AdministrativeState") ?? "",
                  operationalState: json.string("OperationalState") ?? "",
                  onlineState: json.string("OnlineState") ?? "",
                  requiredForOnline: json.bool("RequiredForOnline") ?? false)
    }

    /// The medium networkd's `Type` names, nil when it names none the kernel's classifier
    /// could get wrong: `wlan` is Wi-Fi, `wwan` a cellular modem.
    public var medium: LinkMedium? {
        switch type {
        case "wlan": .wifi
        case "wwan": .wwan
        default: nil
        }
    }

    /// networkd configures the link (it has a `.network` for it).
    public var isManaged: Bool { administrativeState != "unmanaged" && !administrativeState.isEmpty }

    /// The link has a carrier by networkd's `OperationalState`. networkd keeps a link it was told
    /// to configure in `configuring` after it is set down (`off`) or loses its cable
    /// (`no-carrier`): nothing is connecting then, the link is gone. An unknown (`""`) state
    /// is no evidence of a carrier either.
    public var hasCarrier: Bool {
        switch operationalState {
        case "", "off", "no-carrier", "missing": false
        default: true
        }
    }

    /// networkd has an `OnlineState` of the link's own.
    public var hasOnlineState: Bool { onlineState != "" && onlineState != "unknown" }
}
