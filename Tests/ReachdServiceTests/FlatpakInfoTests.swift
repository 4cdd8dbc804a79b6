import Testing
@testable import ReachdService

/// reachd reads a Flatpak app's `/.flatpak-info` as GLib's key-file reader does, and only two
/// keys matter: `[Application] name` for the log and `[Context] shared` for the rule. What the
/// file does not say, the app does not have.
@Suite("Reading /.flatpak-info")
struct FlatpakInfoTests {
    @Test("an app started with --share=network has network; its ID is read")
    func sharedNetworkIsNetwork() {
        let info = FlatpakInfo(parsing: """
            [Application]
            name=org.example.Browser
            runtime=runtime/org.freedesktop.Platform/x86_64/23.08

            [Instance]
            instance-id=1234567890

            [Context]
            shared=network;ipc;
            sockets=x11;wayland;pulseaudio;
            """)
        #expect(info.applicationName == "org.example.Browser")
        #expect(info.shared == ["network", "ipc"])
        #expect(info.hasNetwork)
    }

    @Test("an app that shares only ipc has no network")
    func sharedWithoutNetwork() {
        let info = FlatpakInfo(parsing: "[Application]\nname=org.example.Offline\n[Context]\nshared=ipc;\n")
        #expect(info.applicationName == "org.example.Offline")
        #expect(!info.hasNetwork)
    }

    @Test("missing keys and groups mean nothing shared and no name")
    func missingKeys() {
        #expect(FlatpakInfo(parsing: "") == FlatpakInfo())
        #expect(!FlatpakInfo(parsing: "[Application]\nname=org.example.App\n").hasNetwork)
        #expect(!FlatpakInfo(parsing: "[Context]\nsockets=x11;\n").hasNetwork)
        #expect(FlatpakInfo(parsing: "[Context]\nshared=network;\n").applicationName == nil)
    }

    @Test("only [Context] shared counts: network named elsewhere does not")
    func onlyTheContextGroupCounts() {
        #expect(!FlatpakInfo(parsing: "[Application]\nshared=network;\n").hasNetwork)
        #expect(!FlatpakInfo(parsing: "[Context]\nsockets=network;\n").hasNetwork)
        #expect(!FlatpakInfo(parsing: "[Context]\nshared=networking;ipc\n").hasNetwork)
        #expect(!FlatpakInfo(parsing: "[Context Extra]\nshared=network;\n").hasNetwork)
    }

    @Test("comments, blank lines, spaces around = and a list without its last ; are read as GLib reads them")
    func commentsAndSpacing() {
        let info = FlatpakInfo(parsing: """
            # written by flatpak
            [Application]
              # indented comment
            name = org.example.Spaced\r

            [Context]
            #shared=network;
            shared = ipc ; network
            """)
        #expect(info.applicationName == "org.example.Spaced")
        #expect(info.shared == ["ipc", "network"])
        #expect(info.hasNetwork)
        #expect(!FlatpakInfo(parsing: "[Context]\n# shared=network;\nshared=ipc;\n").hasNetwork)
    }

    @Test("a later duplicate key wins, and an escaped ; is part of an item")
    func duplicatesAndEscapes() {
        #expect(!FlatpakInfo(parsing: "[Context]\nshared=network;\nshared=ipc;\n").hasNetwork)
        #expect(FlatpakInfo(parsing: "[Context]\nshared=ipc;\n[Context]\nshared=network;\n").hasNetwork)
        #expect(FlatpakInfo(parsing: "[Context]\nshared=a\\;network;b\n").shared == ["a;network", "b"])
    }
}
