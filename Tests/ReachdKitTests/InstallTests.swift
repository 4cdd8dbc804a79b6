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
                                               "\(ScratchInstall.gioModuleDirectory)/libgioreachd.so"]), "\(manifest.files.sorted())")
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

    /// `Scripts/install ARGUMENTS` as `sudo Scripts/install` runs it (root, no DESTDIR, the default
    /// prefix), in a mount namespace whose /etc and /usr/local are `scratch`'s etc and usr-local:
    /// what it does to the system stays in those folders.
    static func realInstall(in scratch: String, _ arguments: [String] = []) async throws -> ToolResult {
        try await runTool("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c",
                                               "mount --bind \"$0/etc\" /etc && mount --bind \"$0/usr-local\" /usr/local && exec env -u DESTDIR -u PREFIX \"$@\"",
                                               scratch, ScratchInstall.script] + arguments,
                          environment: ["REACHD_SCRATCH_PATH": PackageTests.scratchPath], timeout: .seconds(1200))
    }

    @Test("as root with no DESTDIR, Scripts/install creates user reachd and copies the bus policy where the system bus reads it, both in the manifest; --uninstall removes both")
    func realInstallRegistersTheSystemInstance() async throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test installs as root (in a mount namespace): run the tests as root (Scripts/test does)")
        }
        let scratch = try ScratchInstall.makeDestination("real-install")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // The machine's /etc without its user reachd (SystemInstanceTests make one), so the install
        // must create it. tar exits 1 when a file changes while read (other tests' /etc/netns).
        try await runToolChecked("/bin/sh", ["-c", """
            set -e
            mkdir "$0/etc" "$0/usr-local"
            (cd /etc && tar --exclude=./netns -cf - .) | tar -xf - -C "$0/etc" || [ $? -eq 1 ]
            sed -i '/^reachd:/d' "$0/etc/passwd" "$0/etc/group" "$0/etc/shadow" "$0/etc/gshadow"
            """, scratch])
        let policy = "/etc/dbus-1/system.d/io.reachd.Reachability1.conf"
        let machineUser = getpwnam("reachd").map { $0.pointee.pw_uid }
        let machinePolicy = FileManager.default.fileExists(atPath: policy)
        func hasReachd(_ file: String) throws -> Bool {
            try String(contentsOfFile: "\(scratch)/etc/\(file)", encoding: .utf8).split(separator: "\n").contains { $0.hasPrefix("reachd:") }
        }

        let install = try await Self.realInstall(in: scratch)
        try #require(install.succeeded, "\(install.transcript)")
        #expect(try hasReachd("passwd") && hasReachd("group"), "user reachd was created: \(install.transcript)")
        // Under /usr/local the bus would not read it: the copy in /etc is the one it reads.
        let shipped = try String(contentsOf: SystemInstance.repository.appendingPathComponent("dbus/system/io.reachd.Reachability1.conf"), encoding: .utf8)
        #expect((try? String(contentsOfFile: scratch + "/etc/dbus-1/system.d/io.reachd.Reachability1.conf", encoding: .utf8)) == shipped)
        let manifest = try ScratchInstall.manifest(at: "\(scratch)/usr-local/share/reachd/install-manifest")
        #expect(manifest.files.isSuperset(of: [policy, "user:reachd", "\(Self.prefix)/share/dbus-1/system.d/io.reachd.Reachability1.conf",
                                               "\(Self.prefix)/lib/sysusers.d/reachd.conf"]), "\(manifest.files.sorted())")

        let uninstall = try await Self.realInstall(in: scratch, ["--uninstall"])
        #expect(uninstall.succeeded, "\(uninstall.transcript)")
        #expect(try !hasReachd("passwd") && !hasReachd("group") && !hasReachd("shadow") && !hasReachd("gshadow"),
                "user reachd and its group were removed: \(uninstall.transcript)")
        #expect(!FileManager.default.fileExists(atPath: scratch + policy))
        #expect(ScratchInstall.tree(under: "\(scratch)/usr-local").files.isEmpty, "\(ScratchInstall.tree(under: "\(scratch)/usr-local").files.sorted())")

        // The machine itself was not touched.
        #expect(getpwnam("reachd").map { $0.pointee.pw_uid } == machineUser)
        #expect(FileManager.default.fileExists(atPath: policy) == machinePolicy)
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
                      (["--gio-module-dir", "lib/gio/modules"], "/usr/local", "absolute path"), (["--gio-module-dir"], "/usr/local", "usage")])
    func installRefusesBadCommandLines(arguments: [String], prefix: String, says: String) async throws {
        let destination = try ScratchInstall.makeDestination("usage")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let result = try await ScratchInstall.run(prefix: prefix, destination: destination, arguments)
        #expect(result.status == 64 && result.standardError.contains(says), "\(result.transcript)")
        #expect(ScratchInstall.tree(under: destination).files.isEmpty)
    }

    @Test("Scripts/install --help says where the GIO module goes and how to choose another folder")
    func helpNamesTheModuleFolder() async throws {
        let destination = try ScratchInstall.makeDestination("help")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let result = try await ScratchInstall.run(prefix: Self.prefix, destination: destination, ["--help"])
        #expect(result.succeeded, "\(result.transcript)")
        for words in ["--gio-module-dir DIR", "GIOMODULEDIR=DIR", "giomoduledir", "GIO_EXTRA_MODULES", "--uninstall", "--no-manifest", "DESTDIR"] {
            #expect(result.standardOutput.contains(words), "\(words): \(result.transcript)")
        }
        #expect(ScratchInstall.tree(under: destination).files.isEmpty)
    }
}
