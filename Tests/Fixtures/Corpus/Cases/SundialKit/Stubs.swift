public import Network

// SundialKit's NetworkPath protocol (NetworkPath.swift) and NWPath's conformance (NWPath.swift):
// only what PathMonitor.swift names.
public protocol NetworkPath {}
extension NWPath: NetworkPath {}
