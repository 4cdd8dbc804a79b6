import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// `Scripts/install` and `Scripts/install --uninstall`, as someone who installed reachd from a
/// checkout and wants it gone again: the install writes a manifest of every file it put in
/// place, and the uninstall removes exactly those, then the directories the install made if
/// nothing else is in them. Files of the user's stay, and a manifest can name nothing outside
/// the prefix but the GIO module (which goes where GLib reads modules) and the folders on the way
/// to it. Into scratch DESTDIRs; the release build is PackageTests'.
@Suite("Scripts/install --uninstall", .timeLimit(.minutes(25)))
struct InstallTests {
    static let prefix = "/usr/local"
    static let manifestPath = "\(prefix)/share/reachd/install-manifest"

    @Test("the manifest lists every file Scripts/install put in place, itself included; --uninstall removes those and the emptied directories, and leaves the user's files")
    func uninstallRemovesExactlyWhatWasInstalled() async throws {
        let destination = try ScratchInstall.makeDestination("install")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        // /usr/local/bin is there before the install, with a program of the user's in it.
        let usersProgram = "\(Self.prefix)/bin/my-tool"
        try FileManager.default.createDirectory(atPath: "\(destination)\(Self.prefix)/bin", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: destination + usersProgram, contents: Data("#!/bin/sh\n".utf8)))
        let before = ScratchInstall.tree(under: destination)

        let install = try await ScratchInstall.run(prefix: Self.prefix, destination: destination)
        try #require(install.succeeded, "\(install.transcript)")
        // GIO's module cache beside the module is GLib's file, which gio-querymodules rewrites
        // (and removes once no module is left): not the install's to list.
        let installed = ScratchInstall.tree(under: destination)
        let installedFiles = installed.files.subtracting([ScratchInstall.gioModuleCache])
        #expect(installed.files.contains(ScratchInstall.gioModuleCache), "\(installed.files.sorted())")
        let manifest = try ScratchInstall.manifest(at: destination + Self.manifestPath)
        #expect(manifest.files == installedFiles.subtracting(before.files),
                "listed but not installed: \(manifest.files.subtracting(installedFiles)); installed but not listed: \(installedFiles.subtracting(before.files).subtracting(manifest.files))")
        #expect(manifest.files.isSuperset(of: [Self.manifestPath, "\(Self.prefix)/bin/reachd", "\(Self.prefix)/bin/reachctl",
                                               "\(Self.prefix)/share/man/man1/reachctl.1.gz", "\(Self.prefix)/share/man/man8/reachd.8.gz",
                                               "\(Self.prefix)/share/dbus-1/services/io.reachd.Reachability1.service",
                                               "\(Self.prefix)/lib/systemd/user/reachd.service",
                                               "\(Self.prefix)/lib/systemd/system/reachd.service",
                                               "\(Self.prefix)/share/dbus-1/system-services/io.reachd.Reachability1.service",
                                               "\(Self.prefix)/share/dbus-1/system.d/io.reachd.Reachability1.conf",
                                               "\(Self.prefix)/lib/sysusers.d/reachd.conf",
                                               // Without systemd: staged under the prefix, as /usr/local has no init.d of its own.
                                               "\(Self.prefix)/etc/init.d/reachd", "\(Self.prefix)/share/reachd/inittab",
                                               "\(ScratchInstall.gioModuleDirectory)/libgioreachd.so"]), "\(manifest.files.sorted())")
        // One program on an image (issue 45): reachctl is reachd by another name, in the same folder.
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: destination + "\(Self.prefix)/bin/reachctl")) == "reachd")
        // The directories it made, under the prefix and on the way to GLib's module folder (the
        // module goes where GLib reads modules, whatever the prefix), and none that were there
        // before (/usr/local, /usr/local/bin).
        #expect(manifest.directories == installed.directories.subtracting(before.directories),
                "\(manifest.directories.sorted())")
        #expect(manifest.directories.contains(ScratchInstall.gioModuleDirectory))
        #expect(!manifest.directories.contains("\(Self.prefix)/bin") && manifest.directories.contains("\(Self.prefix)/share/reachd"))
        // Paths as installed, not as staged: the manifest is true of the tree wherever it is copied.
        let text = try String(contentsOfFile: destination + Self.manifestPath, encoding: .utf8)
        #expect(!text.contains(destination), "\(text)")

        // Installing again over it keeps the directories the first install made on the list.
        let again = try await ScratchInstall.run(prefix: Self.prefix, destination: destination)
        try #require(again.succeeded, "\(again.transcript)")
        let second = try ScratchInstall.manifest(at: destination + Self.manifestPath)
        #expect(second.files == manifest.files && second.directories == manifest.directories,
                "files \(second.files.symmetricDifference(manifest.files)), directories \(second.directories.symmetricDifference(manifest.directories))")

        // A page of the user's, in a directory the install made.
        let usersPage = "\(Self.prefix)/share/man/man1/my-tool.1"
        #expect(FileManager.default.createFile(atPath: destination + usersPage, contents: Data(".TH MY-TOOL 1\n".utf8)))

        let uninstall = try await ScratchInstall.run(prefix: Self.prefix, destination: destination, ["--uninstall"])
        #expect(uninstall.succeeded, "\(uninstall.transcript)")
        let left = ScratchInstall.tree(under: destination)
        #expect(left.files == [usersProgram, usersPage], "left behind: \(left.files.subtracting([usersProgram, usersPage]).sorted())")
        // Emptied directories are gone; those holding the user's page stay, and it says so.
        #expect(left.directories == before.directories.union(["\(Self.prefix)/share", "\(Self.prefix)/share/man", "\(Self.prefix)/share/man/man1"]),
                "\(left.directories.sorted())")
        #expect(uninstall.standardError.contains("kept \(destination)\(Self.prefix)/share/man/man1"), "\(uninstall.transcript)")

        // Nothing is left to uninstall: it says so and fails, rather than guessing.
        let nothing = try await ScratchInstall.run(prefix: Self.prefix, destination: destination, ["--uninstall"])
        #expect(nothing.status == 1 && nothing.standardError.contains("no \(destination)\(Self.manifestPath)"), "\(nothing.transcript)")
        #expect(ScratchInstall.tree(under: destination).files == [usersProgram, usersPage])
    }

    @Test("as root with no DESTDIR, Scripts/install creates user reachd and copies the bus policy where the system bus reads it, both in the manifest, and says whether a system bus runs; --uninstall stops a running system instance, says so, and removes both")
    func realInstallRegistersTheSystemInstance() async throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test installs as root (on a scratch machine: mount and PID namespaces): run the tests as root (Scripts/test does)")
        }
        let machine = try await ScratchMachine.make("real-install")
        defer { machine.remove() }
        let policy = "/etc/dbus-1/system.d/io.reachd.Reachability1.conf"

        let install = try await machine.run(ScratchInstall.script)
        try #require(install.succeeded, "\(install.transcript)")
        #expect(try machine.hasReachd(in: "passwd") && machine.hasReachd(in: "group"), "user reachd was created: \(install.transcript)")
        // Under /usr/local the bus would not read it: the copy in /etc is the one it reads.
        let shipped = try String(contentsOf: SystemInstance.repository.appendingPathComponent("dbus/system/io.reachd.Reachability1.conf"), encoding: .utf8)
        #expect((try? String(contentsOfFile: machine.folder + policy, encoding: .utf8)) == shipped)
        // The init script where sysvinit reads it, for this prefix's reachd (never enabled).
        let initScript = "/etc/init.d/reachd"
        let script = (try? String(contentsOfFile: machine.folder + initScript, encoding: .utf8)) ?? ""
        #expect(script.contains("\nDAEMON=\(Self.prefix)/bin/reachd\n") && access(machine.folder + initScript, X_OK) == 0, "\(script)")
        #expect(!FileManager.default.fileExists(atPath: "\(machine.etc)/rc2.d/S01reachd"))
        let manifest = try ScratchInstall.manifest(at: "\(machine.usrLocal)/share/reachd/install-manifest")
        #expect(manifest.files.isSuperset(of: [policy, initScript, "user:reachd", "\(Self.prefix)/share/dbus-1/system.d/io.reachd.Reachability1.conf",
                                               "\(Self.prefix)/lib/sysusers.d/reachd.conf"]), "\(manifest.files.sorted())")
        // The module went into (the machine's copy of) GLib's folder, and GLib's cache names it.
        #expect(FileManager.default.fileExists(atPath: "\(machine.gioModules)/libgioreachd.so"))
        #expect((try? String(contentsOfFile: "\(machine.gioModules)/giomodule.cache", encoding: .utf8))?.contains("libgioreachd.so") == true)
        // After `installed`, what starts the system instance here: this machine has no system bus.
        let told = install.standardError.components(separatedBy: "==> installed").last ?? ""
        #expect(install.standardError.contains("==> installed") && told.contains("no system bus runs here")
                && told.contains("/etc/init.d/dbus start") && told.contains("update-rc.d reachd defaults")
                && told.contains("/usr/local/share/reachd/inittab"), "\(install.transcript)")

        // A system instance runs (as the system bus would have started it, without systemd), so
        // --uninstall must stop it, as the package's prerm does, before it removes its user.
        let uninstall = try await machine.shell(ScratchMachine.uninstallWithARunningSystemInstance)
        #expect(uninstall.succeeded, "\(uninstall.transcript)")
        let instance = uninstall.standardOutput.split(separator: "\n").first { $0.hasPrefix("INSTANCE=") }.map { $0.dropFirst(9) } ?? "?"
        #expect(uninstall.standardError.contains("stopped the system instance (/usr/local/bin/reachd as user reachd, pid \(instance))"),
                "\(uninstall.transcript)")
        #expect(uninstall.standardOutput.contains("INSTANCE_STATE=gone") || uninstall.standardOutput.contains("INSTANCE_STATE=Z"),
                "the system instance was stopped: \(uninstall.transcript)")
        #expect(try !machine.hasReachd(in: "passwd") && !machine.hasReachd(in: "group") && !machine.hasReachd(in: "shadow")
                && !machine.hasReachd(in: "gshadow"), "user reachd and its group were removed: \(uninstall.transcript)")
        #expect(!FileManager.default.fileExists(atPath: machine.folder + policy) && !FileManager.default.fileExists(atPath: machine.folder + initScript))
        #expect(ScratchInstall.tree(under: machine.usrLocal).files.isEmpty, "\(ScratchInstall.tree(under: machine.usrLocal).files.sorted())")
        #expect(!FileManager.default.fileExists(atPath: "\(machine.gioModules)/libgioreachd.so"))
        #expect((try? String(contentsOfFile: "\(machine.gioModules)/giomodule.cache", encoding: .utf8))?.contains("libgioreachd.so") != true)
    }

    /// What issue 33 met: an administrator's own install lost its GIO module, and GLib's cache was
    /// rewritten, when the suite's real install ran; and its user reachd, in use, made the suite
    /// fail. Here a machine has reachd installed for real, with a process running as its user
    /// reachd, and the suite's real install and uninstall (the same steps, on a machine of their
    /// own made from this one) run on it: its module, cache, user and process are as they were.
    @Test("the suite's real install and uninstall leave an installed reachd's GIO module, GLib's module cache, user reachd and its processes as they were")
    func realInstallLeavesAnInstalledReachdAlone() async throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test installs as root (on a scratch machine: mount and PID namespaces): run the tests as root (Scripts/test does)")
        }
        let machine = try await ScratchMachine.make("installed-machine")
        defer { machine.remove() }
        let result = try await machine.shell(#"""
            set -eu
            install="$0" here="$1"
            machine="$(dirname "$install")/harness/scratch-machine"
            modules="$(pkg-config --variable=giomoduledir gio-2.0)"
            state() {  # the module, GLib's cache and the user, as one line each
                echo "module $(sha256sum < "$modules/libgioreachd.so")"
                echo "cache $(sha256sum < "$modules/giomodule.cache")"
                echo "user $(getent passwd reachd)"
            }
            "$install" 2> "$here/install.log" || { cat "$here/install.log" >&2; exit 1; }
            grep -q libgioreachd.so "$modules/giomodule.cache"
            setpriv --reuid=reachd --regid=reachd --clear-groups sleep 1000 &
            holder=$!
            state > "$here/before"
            # The suite's steps, each on a machine of its own made from this one, as the test above.
            mkdir "$here/suite"
            "$machine" "$here/suite" sed -i '/^reachd:/d' /etc/passwd /etc/group /etc/shadow /etc/gshadow
            "$machine" "$here/suite" "$install" > "$here/suite.log" 2>&1 || { echo "suite install:" >&2; cat "$here/suite.log" >&2; exit 1; }
            "$machine" "$here/suite" /bin/sh -c "$SUITE_UNINSTALL" "$install" "$here/suite" > "$here/suite.log" 2>&1 \
                || { echo "suite uninstall:" >&2; cat "$here/suite.log" >&2; exit 1; }
            grep -q "INSTANCE_STATE=gone\|INSTANCE_STATE=Z" "$here/suite.log" || { cat "$here/suite.log" >&2; exit 1; }
            state > "$here/after"
            kill -0 "$holder" && echo "holder still runs"
            diff "$here/before" "$here/after" && echo "as before"
            """#, environment: ["SUITE_UNINSTALL": ScratchMachine.uninstallWithARunningSystemInstance])
        #expect(result.succeeded, "\(result.transcript)")
        #expect(result.standardOutput.contains("holder still runs") && result.standardOutput.contains("as before"), "\(result.transcript)")
        let before = (try? String(contentsOfFile: "\(machine.folder)/before", encoding: .utf8)) ?? ""
        #expect(before.contains("module ") && before.contains("user reachd:"), "\(before)")
    }

    @Test("--uninstall without a manifest removes nothing, says why and exits 1")
    func uninstallWithoutManifest() async throws {
        let destination = try ScratchInstall.makeDestination("no-manifest")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        // An install from before the manifest: the files are there, the list is not.
        let binary = "\(destination)\(Self.prefix)/bin/reachd"
        try FileManager.default.createDirectory(atPath: "\(destination)\(Self.prefix)/bin", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: binary, contents: Data("old".utf8)))
        let result = try await ScratchInstall.run(prefix: Self.prefix, destination: destination, ["--uninstall"])
        #expect(result.status == 1, "\(result.transcript)")
        #expect(result.standardError.contains("install-manifest") && result.standardError.contains("apt purge reachd"), "\(result.transcript)")
        #expect(FileManager.default.fileExists(atPath: binary))
    }

    /// The GIO module is the one file outside the prefix a manifest may name, with the folders
    /// on the way to it; a folder elsewhere is refused like a file.
    @Test("a manifest naming a file or a folder outside the prefix, or climbing out of it, removes nothing")
    func uninstallStaysInsideThePrefix() async throws {
        let destination = try ScratchInstall.makeDestination("foreign-manifest")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        for foreign in ["/etc/reachd-test-file", "\(Self.prefix)/../etc/reachd-test-file", "/etc/"] {
            let inside = "\(Self.prefix)/bin/reachd", outside = "/etc/reachd-test-file"
            for file in [inside, outside] {
                try FileManager.default.createDirectory(atPath: destination + (file as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                #expect(FileManager.default.createFile(atPath: destination + file, contents: Data("x".utf8)))
            }
            try FileManager.default.createDirectory(atPath: "\(destination)\(Self.prefix)/share/reachd", withIntermediateDirectories: true)
            try "\(inside)\n\(foreign)\n\(Self.manifestPath)\n".write(toFile: destination + Self.manifestPath, atomically: false, encoding: .utf8)

            let result = try await ScratchInstall.run(prefix: Self.prefix, destination: destination, ["--uninstall"])
            #expect(result.status == 1 && result.standardError.contains(foreign), "\(foreign): \(result.transcript)")
            for file in [inside, outside, Self.manifestPath] {
                #expect(FileManager.default.fileExists(atPath: destination + file), "\(foreign): \(file) was removed")
            }
        }
    }

    @Test("Scripts/install refuses what it does not know, a relative PREFIX and a relative module folder, before building anything",
          arguments: [(["--frobnicate"], "/usr/local", "usage"), ([], "usr/local", "PREFIX"),
                      (["--gio-module-dir", "lib/gio/modules"], "/usr/local", "absolute path"), (["--gio-module-dir"], "/usr/local", "usage"),
                      (["--swift-runtime", "dynamic"], "/usr/local", "usage"), (["--swift-runtime"], "/usr/local", "usage")])
    func installRefusesBadCommandLines(arguments: [String], prefix: String, says: String) async throws {
        let destination = try ScratchInstall.makeDestination("usage")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let result = try await ScratchInstall.run(prefix: prefix, destination: destination, arguments)
        #expect(result.status == 64 && result.standardError.contains(says), "\(result.transcript)")
        #expect(ScratchInstall.tree(under: destination).files.isEmpty)
    }

    /// issue 38: an image's build (Yocto, a cross toolchain, a compiler cache) gives the module's
    /// compiler and flags in CC, CPPFLAGS, CFLAGS and LDFLAGS; the build called `cc` whatever they said.
    @Test("the GIO module's build (Scripts/lib/gio-module.sh, as Scripts/install runs it) uses CC, with words of its own, and CPPFLAGS, CFLAGS and LDFLAGS after the module's own flags")
    func gioModuleBuildHonoursCC() async throws {
        let folder = try ScratchInstall.makeDestination("cc-wrapper")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A wrapper, as ccache or a cross toolchain's is: it records what it was given, then compiles.
        let wrapper = "\(folder)/cc-wrapper"
        // Written here, made executable by install(1): a file this process held open for writing
        // is inherited by the children other tests spawn meanwhile, and running it would fail with
        // "Text file busy" while any of them kept it (as OtherUsersCopies copies with cp).
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"\(folder)/arguments\"\nexec cc \"$@\"\n".write(toFile: wrapper + ".sh", atomically: false, encoding: .utf8)
        try await runToolChecked("/usr/bin/install", ["-m", "755", wrapper + ".sh", wrapper])
        let root = Executables.packageRoot.path
        let result = try await runTool("/bin/bash", ["-c", "cd \"$2\" && source Scripts/lib/common.sh && source Scripts/lib/gio-module.sh && gio_module_build \"$1\"",
                                                     "gio-module", "\(folder)/module", root],
                                       environment: ["CC": "\(wrapper) -DREACHD_CC_WORD=1", "CPPFLAGS": "-DREACHD_CPPFLAGS=1",
                                                     "CFLAGS": "-O1 -DREACHD_CFLAGS=1", "LDFLAGS": "-Wl,-z,now"])
        #expect(result.succeeded && result.standardOutput == "\(folder)/module/libgioreachd.so\n", "\(result.transcript)")
        let arguments = (try? String(contentsOfFile: "\(folder)/arguments", encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        #expect(arguments.first == "-DREACHD_CC_WORD=1", "the wrapper ran the build: \(arguments)")
        for flag in ["-DREACHD_CPPFLAGS=1", "-O1", "-DREACHD_CFLAGS=1", "-Wl,-z,now"] {
            #expect(arguments.contains(flag), "\(flag): \(arguments)")
        }
        // The environment's CFLAGS replace the default -O2, and come after -Werror (so -Wno-error wins).
        #expect(!arguments.contains("-O2"), "\(arguments)")
        let werror = arguments.firstIndex(of: "-Werror") ?? .max, cflags = arguments.firstIndex(of: "-DREACHD_CFLAGS=1") ?? -1
        #expect(werror < cflags, "\(arguments)")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/module/libgioreachd.so"))
    }

    @Test("Scripts/install --help says where the GIO module goes and how to choose another folder")
    func helpNamesTheModuleFolder() async throws {
        let destination = try ScratchInstall.makeDestination("help")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let result = try await ScratchInstall.run(prefix: Self.prefix, destination: destination, ["--help"])
        #expect(result.succeeded, "\(result.transcript)")
        for words in ["--gio-module-dir DIR", "GIOMODULEDIR=DIR", "giomoduledir", "GIO_EXTRA_MODULES", "--uninstall", "--no-manifest", "DESTDIR",
                      "--swift-runtime static|shared", "LD_LIBRARY_PATH"] {
            #expect(result.standardOutput.contains(words), "\(words): \(result.transcript)")
        }
        #expect(ScratchInstall.tree(under: destination).files.isEmpty)
    }
}
