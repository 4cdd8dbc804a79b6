import CorpusSupport
import Dispatch
import Foundation

// reachd-corpus NAME: runs one file of Tests/Fixtures/Corpus as its app would, and prints what the
// file's code tells the app (CorpusSupport.Report). SIGUSR1 calls the file's own stop and prints
// `cancelled` (or `no-cancel` where the file has none). `--list` prints every name.
// This is the tests' driver, not corpus code.

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--list" {
    print(corpusCases.keys.sorted().joined(separator: "\n"))
    exit(0)
}
guard arguments.count == 1, let name = arguments.first, let corpusCase = corpusCases[name] else {
    FileHandle.standardError.write(Data("usage: reachd-corpus NAME | --list\n".utf8))
    exit(64)
}

// The test's cancel comes as SIGUSR1, to the dispatch source below, not the default action (exit).
signal(SIGUSR1, SIG_IGN)
let report = Report()
let cancelling = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .main)
// Code written for Apple's platforms often delivers to the main queue: it runs, as in an app.
DispatchQueue.main.async {
    let stop = corpusCase.start(report)
    report.note("started")
    cancelling.setEventHandler {
        if let stop { stop(); report.note("cancelled") } else { report.note("no-cancel") }
    }
    cancelling.resume()
}
dispatchMain()
