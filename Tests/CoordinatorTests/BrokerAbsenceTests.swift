import Testing

@testable import Coordinator

/// A member off the broker keeps its place in the live set within the grace, and leaves after it.
@Suite struct BrokerAbsenceTests {
    @Test("back within the grace: never left, and the grace's end does nothing")
    func rodeOut() {
        let absence = BrokerAbsence(grace: .seconds(2))
        var calls: [String] = []
        let lost = absence.lost()
        #expect(lost != nil)
        #expect(absence.lost() == nil, "lost again before back: the first loss's grace holds")
        #expect(!absence.back { calls.append("rejoin") })
        #expect(!absence.graceEnded(lost!) { calls.append("leave") })
        #expect(calls.isEmpty)
    }

    @Test("away past the grace: leaves once, and joins again when back")
    func left() {
        let absence = BrokerAbsence(grace: .seconds(2))
        var calls: [String] = []
        let lost = absence.lost()!
        #expect(absence.graceEnded(lost) { calls.append("leave") })
        #expect(!absence.graceEnded(lost) { calls.append("leave") })
        #expect(absence.back { calls.append("rejoin") })
        #expect(calls == ["leave", "rejoin"])
    }

    @Test("the grace of an earlier absence does not end a later one")
    func laterAbsence() {
        let absence = BrokerAbsence(grace: .seconds(2))
        var calls: [String] = []
        let first = absence.lost()!
        _ = absence.back { calls.append("rejoin") }
        let second = absence.lost()!
        #expect(second != first)
        #expect(!absence.graceEnded(first) { calls.append("leave") })
        #expect(absence.graceEnded(second) { calls.append("leave") })
        #expect(calls == ["leave"])
    }
}
