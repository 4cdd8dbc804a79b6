import Testing
@testable import ReachdService

/// Where reachd may not open a caller's root (another user's process), the caller's cgroup says
/// whether it is a Flatpak app (contract 4, §1.2): Flatpak starts each app in a systemd scope
/// named `app-flatpak-APPID-N.scope`.
@Suite("A caller's cgroup")
struct CallerCgroupTests {
    @Test("a Flatpak app's scope names its app ID, on cgroup v2 and on a hybrid v1 hierarchy")
    func flatpakScopeNamesTheApp() {
        #expect(CallerSandbox.flatpakApplication(inCgroups:
            "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Maps-2142.scope\n")
            == "org.gnome.Maps")
        #expect(CallerSandbox.flatpakApplication(inCgroups: """
            9:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-com.example.My-App-77.scope
            8:pids:/user.slice
            0::/
            """) == "com.example.My-App", "a dash inside the ID stays; only the instance number goes")
    }

    @Test("a host process's scopes and services are not Flatpak's")
    func hostProcessesAreNot() {
        for cgroups in [
            "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-1234.scope\n",
            "0::/system.slice/geoclue.service\n",
            "0::/\n",
            "0::/user.slice/app-flatpak-looks-like.slice/x.scope\n",
            "",
        ] {
            #expect(CallerSandbox.flatpakApplication(inCgroups: cgroups) == nil, "\(cgroups)")
        }
    }
}
