// ReactiveSwift, only what Reactor's Reachability.swift and the corpus case use: a producer of one
// value, and starting it for its values.
public struct SignalProducer<Value, Error: Swift.Error> {
    private let value: Value

    public init(value: Value) { self.value = value }

    public func startWithValues(_ action: (Value) -> Void) { action(value) }
}
