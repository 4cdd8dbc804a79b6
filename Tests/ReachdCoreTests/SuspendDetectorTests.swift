import ReachdCore
import Testing

/// Without logind, a suspend shows as the boot-time clock running ahead of the monotonic one.
@Suite("Suspend detection from the clocks")
struct SuspendDetectorTests {
    @Test func theFirstCheckNeverReportsASleep() {
        var detector = SuspendDetector()
        let slept = detector.sleptSinceLastCheck(bootTime: .seconds(500), monotonic: .seconds(10))
        #expect(!slept)
    }

    @Test func clocksRunningTogetherAreNoSleep() {
        var detector = SuspendDetector()
        _ = detector.sleptSinceLastCheck(bootTime: .seconds(100), monotonic: .seconds(100))
        let together = detector.sleptSinceLastCheck(bootTime: .seconds(160), monotonic: .seconds(160))
        #expect(!together)
        let drift = detector.sleptSinceLastCheck(bootTime: .milliseconds(164_900), monotonic: .seconds(160))
        #expect(!drift, "4.9 s of drift is under the threshold")
    }

    @Test func anHourAsleepIsASleepOnceThenTheClocksRunTogetherAgain() {
        var detector = SuspendDetector()
        _ = detector.sleptSinceLastCheck(bootTime: .seconds(100), monotonic: .seconds(100))
        let asleep = detector.sleptSinceLastCheck(bootTime: .seconds(3_710), monotonic: .seconds(110))
        #expect(asleep)
        let awake = detector.sleptSinceLastCheck(bootTime: .seconds(3_720), monotonic: .seconds(120))
        #expect(!awake)
    }
}
