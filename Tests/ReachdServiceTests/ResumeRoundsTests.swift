@testable import ReachdEngine
import Testing

/// The resynchronisations after a resume, as a table of wakes and rounds (docs/design.md,
/// "Sleep and resume"): at wake and 5 s later, never two within 5 s, however many wakes.
@Suite("Resume rounds")
struct ResumeRoundsTests {
    let start = ContinuousClock.now

    @Test("one wake: a round at once, one 5 s later, then none")
    func oneWake() {
        var rounds = ResumeRounds()
        #expect(rounds.due(after: start) == nil)
        rounds.woke()
        #expect(rounds.due(after: start) == start)
        #expect(rounds.ran(at: start) == "at wake")
        #expect(rounds.due(after: start + .seconds(1)) == start + .seconds(5))
        #expect(rounds.ran(at: start + .seconds(5)) == "5 s after wake")
        #expect(rounds.due(after: start + .seconds(6)) == nil)
    }

    @Test("a thousand wakes within a second of the first: three rounds, 5 s apart")
    func burstOfWakes() {
        var rounds = ResumeRounds()
        rounds.woke()
        var ran: [Duration] = []
        var now = start
        for millisecond in 0..<1000 {
            now = start + .milliseconds(millisecond)
            rounds.woke()
            if let due = rounds.due(after: now), due <= now {
                _ = rounds.ran(at: now)
                ran.append(now - start)
            }
        }
        while let due = rounds.due(after: now) {
            now = due
            _ = rounds.ran(at: now)
            ran.append(now - start)
        }
        #expect(ran == [.zero, .seconds(5), .seconds(10)])
    }

    @Test("a wake long after the last round is served at once")
    func laterWakeAtOnce() {
        var rounds = ResumeRounds()
        rounds.woke()
        _ = rounds.ran(at: start)
        _ = rounds.ran(at: start + .seconds(5))
        rounds.woke()
        #expect(rounds.due(after: start + .seconds(60)) == start + .seconds(60))
    }
}
