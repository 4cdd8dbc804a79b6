import ArgumentParser

/// A number of seconds on the command line: decimals allowed, `inf` (or `infinity`) for no limit.
///
/// Any number parses, negative ones too, so that `validate()` can say which range the option
/// takes (`--timeout must be 0 or more seconds (or inf); got -1`) instead of ArgumentParser's
/// generic "invalid value". The default shows in `--help` as it was written (`30`, not `30.0`).
struct Seconds: ExpressibleByArgument, Equatable {
    var value: Double
    /// As the user wrote it, for messages.
    var text: String

    init(_ value: Double) {
        self.value = value
        text = value == value.rounded() && value.isFinite ? String(Int(value)) : String(value)
    }

    init?(argument: String) {
        if ["inf", "infinity"].contains(argument.lowercased()) {
            value = .infinity
        } else {
            guard let number = Double(argument), !number.isNaN else { return nil }
            value = number
        }
        text = argument
    }

    var defaultValueDescription: String { text }

    var duration: Duration { .seconds(value) }
}
