@testable import ReachdEventLoops
import PropertyBased
import Testing

/// The loop's sleep until its next timer: whatever the deadline (a year away, or a
/// `Duration` beyond any integer's milliseconds), epoll gets a timeout it can take and the loop
/// lives; it wakes at the latest after `Int32.max` milliseconds and asks again.
@Suite("The loop's timeout until its next timer")
struct TimerQueueTests {
    static func timeout(after remaining: Duration) -> Int32 {
        let now = ContinuousClock.now
        var queue = TimerQueue()
        _ = queue.schedule(at: now + remaining) {}
        return queue.millisecondsUntilNextDeadline(now: now)
    }

    @Test("any deadline, however far, gives a timeout from 0 to Int32.max, rounded up to the millisecond")
    func anyDeadline() async {
        await propertyCheck(count: 2000, input: Gen.int64()) { seconds in
            let timeout = Self.timeout(after: .seconds(seconds))
            let expected = seconds <= 0 ? 0 : Int32(clamping: min(seconds, Int64(Int32.max)) * 1000)
            #expect(timeout == expected, "\(seconds) s")
        }
        await propertyCheck(count: 500, input: Gen.int64(in: 1...1_000_000_000)) { nanoseconds in
            let timeout = Self.timeout(after: .nanoseconds(nanoseconds))
            #expect(Int64(timeout) == (nanoseconds + 999_999) / 1_000_000, "\(nanoseconds) ns")
        }
    }

    @Test("the deadlines of the issue: 1e16 s, Int.max s, and beyond Int64 seconds",
          arguments: [Duration.seconds(10_000_000_000_000_000), .seconds(Int64.max), .seconds(Int64.max) * 4,
                      .seconds(31_536_000), .milliseconds(Int64(Int32.max)), .milliseconds(Int64(Int32.max) - 1)])
    func farDeadlines(remaining: Duration) {
        let expected: Int32 = remaining < .milliseconds(Int64(Int32.max)) ? Int32.max - 1 : Int32.max
        #expect(Self.timeout(after: remaining) == expected)
    }

    @Test("no timer: -1 (sleep until a descriptor is ready)")
    func noTimer() {
        #expect(TimerQueue().millisecondsUntilNextDeadline(now: .now) == -1)
    }
}
