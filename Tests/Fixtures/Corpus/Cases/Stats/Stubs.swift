// Stats' Kit logs through a global `error(_:)`.
func error(_ message: String) { print("stats error: \(message)") }
