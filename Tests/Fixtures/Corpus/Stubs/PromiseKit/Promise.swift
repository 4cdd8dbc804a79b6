import Foundation

// PromiseKit, only what its SystemConfiguration extension and the corpus case use: a promise that is
// fulfilled or rejected once, `pending()`, `ensure` and `done`. Handlers run where the promise is
// resolved (PromiseKit's run on the main queue; the extension resolves on the main queue).
public final class Promise<T> {
    private let lock = NSLock()
    private var result: Swift.Result<T, any Error>?
    private var handlers: [(Swift.Result<T, any Error>) -> Void] = []

    init(result: Swift.Result<T, any Error>?) { self.result = result }

    public convenience init(error: any Error) { self.init(result: .failure(error)) }

    public static func pending() -> (promise: Promise<T>, resolver: Resolver<T>) {
        let promise = Promise<T>(result: nil)
        return (promise, Resolver(promise))
    }

    func resolve(_ result: Swift.Result<T, any Error>) {
        let handlers = lock.withLock { () -> [(Swift.Result<T, any Error>) -> Void] in
            guard self.result == nil else { return [] }
            self.result = result
            defer { self.handlers = [] }
            return self.handlers
        }
        for handler in handlers { handler(result) }
    }

    private func whenResolved(_ handler: @escaping (Swift.Result<T, any Error>) -> Void) {
        let resolved = lock.withLock { () -> Swift.Result<T, any Error>? in
            if result == nil { handlers.append(handler) }
            return result
        }
        if let resolved { handler(resolved) }
    }

    public func ensure(_ body: @escaping () -> Void) -> Promise<T> {
        let next = Promise<T>(result: nil)
        whenResolved { result in body(); next.resolve(result) }
        return next
    }

    @discardableResult
    public func done(_ body: @escaping (T) -> Void) -> Promise<Void> {
        let next = Promise<Void>(result: nil)
        whenResolved { result in
            switch result {
            case .success(let value): body(value); next.resolve(.success(()))
            case .failure(let error): next.resolve(.failure(error))
            }
        }
        return next
    }
}

extension Promise where T == Void {
    /// A promise already fulfilled.
    public convenience init() { self.init(result: .success(())) }
}

public final class Resolver<T> {
    private let promise: Promise<T>
    init(_ promise: Promise<T>) { self.promise = promise }
    public func fulfill(_ value: T) { promise.resolve(.success(value)) }
    public func reject(_ error: any Error) { promise.resolve(.failure(error)) }
}
