import Foundation
import Glibc
import ReachdEventLoops
import Testing

/// Waiting for a bus's socket file at boot: through folders that do not exist yet, for a file
/// made again after its daemon died, and never longer than the waiter wants.
@Suite("Waiting for a file to appear", .timeLimit(.minutes(1)))
struct FileAppearanceTests {
    /// A folder of this test's own, removed afterwards.
    static func withFolder<T>(_ body: (String) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-appear-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try await body(folder)
    }

    @Test("a file two folders below anything that exists: the wait moves down as the folders are made, and ends when the file is there")
    func throughFoldersNotThereYet() async throws {
        try await Self.withFolder { folder in
            let loop = try EventLoop(name: "appearance")
            let path = folder + "/run/dbus/system_bus_socket"
            let waiting = Task { await FileAppearance.wait(for: path, replacing: nil, on: loop) }
            try await Task.sleep(for: .milliseconds(200))
            try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: false)
            try await Task.sleep(for: .milliseconds(100))
            try FileManager.default.createDirectory(atPath: folder + "/run/dbus", withIntermediateDirectories: false)
            try await Task.sleep(for: .milliseconds(100))
            try Data().write(to: URL(fileURLWithPath: path))
            let outcome = await waiting.value
            #expect(outcome == .appeared(FileAppearance.identity(of: path)!))
        }
    }

    @Test("a file already there ends the wait at once; the same file, named as the one replaced, does not")
    func presentAndReplaced() async throws {
        try await Self.withFolder { folder in
            let loop = try EventLoop(name: "appearance")
            let path = folder + "/bus"
            try Data().write(to: URL(fileURLWithPath: path))
            let old = try #require(FileAppearance.identity(of: path))
            #expect(await FileAppearance.wait(for: path, replacing: nil, on: loop) == .appeared(old))

            let waiting = Task { await FileAppearance.wait(for: path, replacing: old, on: loop) }
            try await Task.sleep(for: .milliseconds(300))
            // The dead daemon's file is still there: nothing to do yet. A new daemon replaces it.
            try FileManager.default.removeItem(atPath: path)
            try Data([1]).write(to: URL(fileURLWithPath: path + ".new"))
            #expect(rename(path + ".new", path) == 0)
            let outcome = await waiting.value
            let new = try #require(FileAppearance.identity(of: path))
            #expect(new != old)
            #expect(outcome == .appeared(new))
        }
    }

    @Test("a cancelled wait ends at once, before or while it waits")
    func cancelled() async throws {
        try await Self.withFolder { folder in
            let loop = try EventLoop(name: "appearance")
            let waiting = Task { await FileAppearance.wait(for: folder + "/never", replacing: nil, on: loop) }
            try await Task.sleep(for: .milliseconds(200))
            waiting.cancel()
            #expect(await waiting.value == .cancelled)
            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await FileAppearance.wait(for: folder + "/never", replacing: nil, on: loop)
            }
            #expect(await early.value == .cancelled)
        }
    }
}
