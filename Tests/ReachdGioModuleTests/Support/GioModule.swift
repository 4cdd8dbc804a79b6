import Foundation
import Glibc
import ReachdTestSupport

/// The module under test, built from Sources/reachd-gio-module by Scripts/lib/gio-module.sh
/// (as Scripts/install builds it), once per test run and variant, into a folder of this process
/// that GIO_EXTRA_MODULES names.
enum ModuleBuild: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The module as installed.
    case plain
    /// The same sources with AddressSanitizer: a consumer loading it runs with libasan preloaded.
    case asan

    var description: String { rawValue }

    /// The folder holding this variant's libgioreachd.so (and nothing else GIO would load).
    func directory() async throws -> String {
        try await ModuleBuilds.shared.directory(for: self)
    }

    /// What a process loading this variant needs in its environment.
    var environment: [String: String] {
        switch self {
        case .plain:
            return [:]
        case .asan:
            // The sanitizer's runtime must come first in the process; leaks are valgrind's job
            // (python3 itself leaks at exit, which LeakSanitizer would report).
            return ["LD_PRELOAD": ModuleBuilds.asanRuntime,
                    "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:exitcode=86"]
        }
    }
}

actor ModuleBuilds {
    static let shared = ModuleBuilds()

    /// The reachd package's root (this file is Tests/ReachdGioModuleTests/Support/GioModule.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The builds, inside the package's git-ignored scratch folders rather than /tmp, rebuilt by
    /// every test run. A folder under /tmp named after this process and removed at exit lost its
    /// module in the middle of a full `Scripts/test` (ld: cannot open output file), while the
    /// suite alone kept it; nothing here removes this one.
    static let root = packageRoot + "/.build-gio-tests"

    /// gcc's libasan, the runtime the ASan build needs.
    static let asanRuntime: String = {
        let pipe = popen("gcc -print-file-name=libasan.so", "r")
        defer { if let pipe { pclose(pipe) } }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard let pipe, fgets(&buffer, Int32(buffer.count), pipe) != nil else { return "libasan.so" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    private var builds: [ModuleBuild: Task<String, any Error>] = [:]

    func directory(for build: ModuleBuild) async throws -> String {
        if let task = builds[build] { return try await task.value }
        let task = Task<String, any Error> {
            let directory = "\(Self.root)/\(build)"
            let result = try await runTool("/bin/bash", [
                "-c", #"set -euo pipefail; cd "$1"; source Scripts/lib/common.sh; source Scripts/lib/gio-module.sh; gio_module_build "$2" $3"#,
                "bash", Self.packageRoot, directory, build == .asan ? "--asan" : "",
            ], timeout: .seconds(300))
            guard result.succeeded else {
                throw TestFailure("""
                    building the module (\(build)) failed; it needs gcc, pkg-config and libglib2.0-dev \
                    (Scripts/test installs them): \(result.transcript)
                    """)
            }
            return directory
        }
        builds[build] = task
        return try await task.value
    }
}
