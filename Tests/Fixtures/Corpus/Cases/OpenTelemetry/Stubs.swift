// OpenTelemetry's NetworkStatus instrumentation (NetworkMonitorProtocol.swift, Connection.swift):
// only what NetworkMonitor.swift names.
public enum Connection { case unavailable, wifi, cellular }

public protocol NetworkMonitorProtocol {
    func getConnection() -> Connection
}
