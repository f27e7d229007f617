import Testing

@testable import Coordinator

/// How recently a phone's iOS must have detected a beacon for a region added now to start inside,
/// learned from the phone's own answers.
@Suite struct InRangeWindowTests {
    /// A region added 12 s after its beacon's last detection that the phone never reports
    /// entered started outside: the window shrinks to that age.
    @Test func anAddedRegionNeverEnteredNarrowsTheWindow() {
        var window = InRangeWindow()
        #expect(window.window == InRangeWindow.assumed)
        window.probe(version: 3, at: 100_000, added: [InRangeWindow.Probe(region: 7, age: 12_000)])
        window.answer(version: 3, entered: [], ranged: [], monitored: [7], at: 101_000)
        #expect(window.window == InRangeWindow.assumed, "still waiting for the answer")
        window.answer(version: 3, entered: [], ranged: [], monitored: [7], at: 106_000)
        #expect(window.window == 13_000, "the age plus the second before the phone applied it")
    }

    /// An enter (the `requestState` answer) means it started inside: nothing narrows.
    @Test func anAddedRegionEnteredKeepsTheWindow() {
        var window = InRangeWindow()
        window.probe(version: 3, at: 100_000, added: [InRangeWindow.Probe(region: 7, age: 12_000)])
        window.answer(version: 3, entered: [7], ranged: [], monitored: [7], at: 101_000)
        window.answer(version: 3, entered: [], ranged: [], monitored: [7], at: 110_000)
        #expect(window.window == InRangeWindow.assumed)
    }

    /// An enter for a region whose beacon the phone ranges again may be a fresh detection: it
    /// teaches nothing, and neither does the silence after it.
    @Test func aRegionRangedAgainTeachesNothing() {
        var window = InRangeWindow()
        window.probe(version: 3, at: 100_000, added: [InRangeWindow.Probe(region: 7, age: 3_000)])
        window.answer(version: 3, entered: [7], ranged: [7], monitored: [7], at: 101_000)
        window.answer(version: 3, entered: [], ranged: [], monitored: [7], at: 110_000)
        #expect(window.window == InRangeWindow.assumed)
    }

    /// A probe the phone never applied, or whose region the next plan dropped, says nothing; and
    /// the window never goes below ``InRangeWindow/shortest``.
    @Test func unansweredProbesSayNothingAndTheWindowHasAFloor() {
        var window = InRangeWindow()
        window.probe(version: 3, at: 100_000, added: [InRangeWindow.Probe(region: 7, age: 2_000)])
        window.answer(version: 2, entered: [], ranged: [], monitored: [7], at: 110_000)
        #expect(window.window == InRangeWindow.assumed, "never applied")
        window.probe(version: 4, at: 120_000, added: [InRangeWindow.Probe(region: 8, age: 2_000)])
        window.answer(version: 4, entered: [], ranged: [], monitored: [9], at: 121_000)
        window.answer(version: 4, entered: [], ranged: [], monitored: [9], at: 130_000)
        #expect(window.window == InRangeWindow.assumed, "dropped before its answer")
        window.probe(version: 5, at: 140_000, added: [InRangeWindow.Probe(region: 9, age: 1_000)])
        window.answer(version: 5, entered: [], ranged: [], monitored: [9], at: 140_500)
        window.answer(version: 5, entered: [], ranged: [], monitored: [9], at: 150_000)
        #expect(window.window == InRangeWindow.shortest)
    }
}
