import Foundation

/// `executable arguments…` in network namespace `namespace` as an app where no bus is: no `DBUS_*`
/// variables (nor `XDG_RUNTIME_DIR`, `REACHD_SERVICE`), and an empty `/run/dbus` in a mount namespace
/// of its own, so reachd's products answer in-process; `environment` is added.
public func processWithoutBuses(inNamespace namespace: String, _ executable: String, _ arguments: [String],
                                environment: [String: String] = [:]) throws -> ChildProcess {
    let hideSystemBus = "mount -t tmpfs tmpfs /run/dbus 2>/dev/null || true; exec \"$0\" \"$@\""
    return try ChildProcess("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/bin/unshare", "--mount", "--",
                                             "/bin/sh", "-c", hideSystemBus, executable] + arguments,
                            environment: environment,
                            unsetting: ["DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "XDG_RUNTIME_DIR", "REACHD_SERVICE"])
}

/// Deletes each network namespace (`ip netns delete`), whether or not it is there.
public func deleteNetworkNamespaces(_ names: [String]) {
    for name in names {
        if let child = try? ChildProcess("/usr/sbin/ip", ["netns", "delete", name]) { _ = child.waitBlocking(); child.removeOutput() }
    }
}
