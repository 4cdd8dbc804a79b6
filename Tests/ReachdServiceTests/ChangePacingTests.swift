@testable import ReachdEngine
import Testing

/// How the engine paces the kernel's changes (contract 7, §1): a bring-up published at once,
/// sustained churn at four evaluations a second, as before.
@Suite("Kernel changes: at once in a burst, four a second under churn")
struct ChangePacingTests {
    let start = ContinuousClock.now

    @Test("a bring-up (link, address, route 2 ms apart) is evaluated change by change, with no wait")
    func bringUpAtOnce() {
        var pacing = ChangePacing()
        for step in 0..<3 {
            #expect(pacing.delay(at: start + .milliseconds(2 * step)) == .zero)
        }
    }

    @Test("a routing daemon's churn (a change every millisecond for 10 s) costs four evaluations a second after the first burst")
    func sustainedChurn() {
        var pacing = ChangePacing()
        var now = start, evaluations = 0
        let end = start + .seconds(10)
        while now < end {
            let wait = pacing.delay(at: now)
            evaluations += 1
            // The engine sleeps out the wait; meanwhile the stream keeps only the newest change,
            // which is there again a millisecond later.
            now += wait + .milliseconds(1)
        }
        #expect(evaluations >= 40 && evaluations <= 4 + 40 + 1, "\(evaluations) evaluations in 10 s")
    }

    @Test("after a quiet second the whole burst is there again; after one evaluation, a quarter second brings one back")
    func budgetComesBack() {
        var pacing = ChangePacing()
        for _ in 0..<4 { _ = pacing.delay(at: start) }
        #expect(pacing.delay(at: start) == .milliseconds(250), "the fifth waits for the next token")
        let later = start + .seconds(2)
        for _ in 0..<4 { #expect(pacing.delay(at: later) == .zero) }
        #expect(pacing.delay(at: later + .milliseconds(1)) > .zero)
    }
}
