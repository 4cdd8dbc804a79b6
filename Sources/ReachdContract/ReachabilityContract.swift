import ReachdDBus

/// The names of reachd's D-Bus contract (`dbus/io.reachd.Reachability1.xml`), spelled once
/// for the service and the client library.
///
/// Adding a property means: the XML, an entry in the object's property table
/// (`PublishedReachability.contractProperties` or `HostReport.contractProperties`), and the
/// computation of its value. Everything else (dispatch, introspection, change detection,
/// `PropertiesChanged`) follows from the table.
///
/// ```swift
/// try await bus.call(destination: ReachdContract.busName, path: ReachdContract.objectPath,
///                    interface: ReachdContract.interface, member: ReachdContract.getStatus)
/// ```
public enum ReachdContract {
    /// The well-known name reachd owns on the session bus.
    public static let busName: BusName = "io.reachd.Reachability1"
    /// The main object: the default route's reachability.
    public static let objectPath: ObjectPath = "/io/reachd/Reachability1"
    /// The main object's interface.
    public static let interface: InterfaceName = "io.reachd.Reachability1"
    /// Host monitors' interface.
    public static let monitorInterface: InterfaceName = "io.reachd.Reachability1.Monitor"
    /// Host monitors live below this path, as `…/Monitors/N`.
    public static let monitorsPath: ObjectPath = "/io/reachd/Reachability1/Monitors"

    /// The path of host monitor number `id`.
    public static func monitorPath(_ id: UInt64) -> ObjectPath {
        // Digits appended to a valid path as a new element always make a valid path.
        ObjectPath(rawValue: "\(monitorsPath.rawValue)/\(id)") ?? monitorsPath
    }

    // Members, as the XML spells them.
    public static let getStatus: MemberName = "GetStatus"
    public static let getPath: MemberName = "GetPath"
    public static let checkConnectivity: MemberName = "CheckConnectivity"
    public static let managerForDomain: MemberName = "ManagerForDomain"
    public static let managerForAddress: MemberName = "ManagerForAddress"
    public static let checkHost: MemberName = "CheckHost"
    public static let release: MemberName = "Release"
    /// `ReachabilityChanged(i status, u flags)`, on the main object and on every monitor.
    public static let reachabilityChanged: MemberName = "ReachabilityChanged"
    /// The main object's count of host monitors served (not part of the reachability value).
    public static let monitorCount = "MonitorCount"
    /// The main object's network namespace: the inode of reachd's `/proc/self/ns/net` (constant;
    /// interface version 4). A client whose own differs must not use this reachd's answers.
    public static let networkNamespace = "NetworkNamespace"
    /// A monitor's `Host` (constant).
    public static let host = "Host"
}
