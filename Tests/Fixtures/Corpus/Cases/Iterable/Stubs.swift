// Iterable's logging (ITBInfo in Logging.swift).
func ITBInfo(_ message: String? = nil, file: String = #file, method: String = #function, line: Int = #line) {}
