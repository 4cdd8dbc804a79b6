import Foundation

// Alamofire's `Protected` (Protected.swift): a value behind a lock. Only what this file uses.
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func write<Result>(_ closure: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try closure(&value) }
    }

    func read<Result>(_ closure: (Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try closure(value) }
    }
}
