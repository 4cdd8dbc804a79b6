@testable import ReachdEngine
import Testing

/// How the engine paces the kernel's changes (contract 7, §1): a bring-up published at once,
/// sustained churn at four evaluations a second, as before.
@Suite("Kernel changes: at once in a burst, four a second under churn")
struct ChangePacingTests {
    let start = ContinuousClock.now

    @Test("a bring-up as the kernel announces it (eight messages a millisecond apart) is evaluated change by change, with no wait")
    func bringUpAtOnce() {
        var pacing = ChangePacing()
        for step in 0..<8 {
            #expect(pacing.delay(at: start + .milliseconds(step)) == .zero)
        }
    }

    @Test("a loss right after a bring-up, once two quiet seconds have passed, is evaluated at once too")
    func lossAfterBringUp() {
        var pacing = ChangePacing()
        for step in 0..<8 { _ = pacing.delay(at: start + .milliseconds(step)) }
        let later = start + .seconds(2) + .milliseconds(8)
        for step in 0..<8 {
            #expect(pacing.delay(at: later + .milliseconds(step)) == .zero)
        }
    }

    @Test("a burst of 1,000 route changes in a second costs what it did: the first budget, then four a second")
    func thousandRouteBurst() {
        var pacing = ChangePacing()
        var now = start, evaluations = 0
        // The engine evaluates, sleeping out any wait; meanwhile the stream keeps only the newest
        // of the burst's changes (one a millisecond), so after a wait one evaluation takes them all.
        while now < start + .seconds(1) {
            now += pacing.delay(at: now)
            evaluations += 1
            now += .milliseconds(1)
        }
        // Before the leading edge: one evaluation each 250 ms (4, and the last change's); now the
        // first 8 at once, then 4.
        #expect(evaluations <= 8 + 4 + 1, "\(evaluations) evaluations for 1,000 changes")
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
        #expect(evaluations >= 40 && evaluations <= 8 + 40 + 1, "\(evaluations) evaluations in 10 s")
    }

    @Test("after two quiet seconds the whole burst is there again; after one evaluation, a quarter second brings one back")
    func budgetComesBack() {
        var pacing = ChangePacing()
        for _ in 0..<8 { _ = pacing.delay(at: start) }
        #expect(pacing.delay(at: start) == .milliseconds(250), "the ninth waits for the next token")
        let later = start + .seconds(3)
        for _ in 0..<8 { #expect(pacing.delay(at: later) == .zero) }
        #expect(pacing.delay(at: later + .milliseconds(1)) > .zero)
    }
}
