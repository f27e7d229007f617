/// The phones a simulation draws from: ranges of radios and iOS timings (`../shared/IOS.md`,
/// "What real phones add on top"), none of them told to the coordinator. Each simulated phone
/// draws one ``PhoneCondition`` from them, seeded; each region beacon of the venue draws its true
/// measured power once per run.
///
/// ``ios`` is the family IOS.md describes and the default of `simulate`; ``declared`` is the single
/// phone the venue files declare (their radio, prompt iOS), the model before families.
public struct PhoneFamily: Sendable, Hashable, Codable {
    /// The true measured power (dBm at 1 m) of each region beacon, drawn once per run; `nil`:
    /// each region's declared power (`regions.csv`, else `venue.conf`).
    public var power: ClosedRange<Double>?
    /// The path-loss exponent a phone's readings follow; `nil`: the venue's.
    public var exponent: ClosedRange<Double>?
    /// Body shadowing of one reading, dB (standard deviation); `nil`: the venue's.
    public var shadowing: ClosedRange<Double>?
    /// How long a shadowing deviation lasts, seconds: readings are correlated in time (a body
    /// blocking a beacon blocks it for seconds). 0: independent readings every step.
    public var fadingTime: ClosedRange<Double>
    /// Standard deviation of a phone's own receiver offset, dB (the same for every beacon it hears).
    public var receiverSpread: Double
    /// Seconds between a suspended phone's background scans: a monitored region enters at the
    /// first scan that hears its beacon, so an enter is late by up to this. 0: every step.
    public var scanInterval: ClosedRange<Double>
    /// Seconds from a region's last detection to its exit.
    public var exitDelay: ClosedRange<Double>
    /// Seconds a wake lets the app run, drawn anew for every wake.
    public var wakeWindow: ClosedRange<Double>
    /// BeaconFleet's slots: iOS's 20 less the app's own regions.
    public var budget: ClosedRange<Int>
    /// A region added within this many seconds of its beacon's last detection starts *inside*
    /// (no enter; iOS does not document it).
    public var inRangeWindow: ClosedRange<Double>
    /// The share of enters and exits iOS never delivers (IOS.md: "some never"): the app neither
    /// wakes for them nor logs them, though iOS's own state follows the radio.
    public var lostEvents: ClosedRange<Double> = 0...0

    /// IOS.md's phones: beacons at −80…−59 dBm whatever the venue files say, path-loss exponent
    /// 2.0–3.0, shadowing 3–8 dB lasting 1–10 s, receivers ±2 dB, background enters up to 0–15 s
    /// late, exits 30–90 s after the last detection, wakes of 5–30 s, 16–20 slots, and a region
    /// added within 1–30 s of its beacon's last detection starting inside.
    public static let ios = PhoneFamily(
        power: -80 ... -59, exponent: 2.0...3.0, shadowing: 3...8, fadingTime: 1...10, receiverSpread: 2, scanInterval: 0...15,
        exitDelay: 30...90, wakeWindow: 5...30, budget: 16...20, inRangeWindow: 1...30)

    /// The one phone the venue files declare: their powers, exponent and shadowing (independent
    /// readings), prompt iOS (every step scanned, exit after 30 s, 10 s wakes, 18 slots, a region
    /// starts inside when heard in the last second).
    public static let declared = PhoneFamily(
        power: nil, exponent: nil, shadowing: nil, fadingTime: 0...0, receiverSpread: 0, scanInterval: 0...0, exitDelay: 30...30,
        wakeWindow: 10...10, budget: 18...18, inRangeWindow: 1...1)

    /// The families by name, for the command line.
    public static let named: [String: PhoneFamily] = ["ios": .ios, "declared": .declared]

    /// The parameters ``setting(_:)`` can change, for the command line.
    public static let settings = [
        "power", "exponent", "shadowing", "fading", "receiver", "scan", "exit", "wake", "budget", "in-range", "lost",
    ]

    /// Changes one parameter from a `NAME=VALUE` or `NAME=LOW...HIGH` setting (`power`, `exponent`
    /// and `shadowing` also take `declared`: the venue files' own). Throws a message naming what
    /// is wrong.
    public mutating func setting(_ text: String) throws(SimulationError) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, Self.settings.contains(parts[0]) else {
            throw .invalidParameter(
                name: "phones", reason: "'\(text)' is not NAME=VALUE with NAME one of \(Self.settings.joined(separator: ", "))")
        }
        let (name, value) = (parts[0], parts[1])
        func range() throws(SimulationError) -> ClosedRange<Double> {
            guard let range = ClosedRange<Double>(parsing: value) else {
                throw .invalidParameter(name: "phones", reason: "\(name): '\(value)' is not a number or LOW...HIGH")
            }
            return range
        }
        let declared = value == "declared"
        switch name {
        case "power": power = declared ? nil : try range()
        case "exponent": exponent = declared ? nil : try range()
        case "shadowing": shadowing = declared ? nil : try range()
        case "fading": fadingTime = try range()
        case "receiver":
            let spread = try range()
            receiverSpread = spread.upperBound
        case "scan": scanInterval = try range()
        case "exit": exitDelay = try range()
        case "wake":
            wakeWindow = try range()
            if !(wakeWindow.lowerBound > 0) { throw .invalidParameter(name: "phones", reason: "wake: must be positive") }
        case "budget":
            let slots = try range()
            guard slots.lowerBound >= 1, slots.upperBound <= 20, slots.lowerBound == slots.lowerBound.rounded(),
                slots.upperBound == slots.upperBound.rounded()
            else { throw .invalidParameter(name: "phones", reason: "budget: whole slots from 1 to 20, got '\(value)'") }
            budget = Int(slots.lowerBound)...Int(slots.upperBound)
        case "lost":
            let share = try range()
            guard share.lowerBound >= 0, share.upperBound < 1 else {
                throw .invalidParameter(name: "phones", reason: "lost: a share of events from 0 to below 1, got '\(value)'")
            }
            lostEvents = share
        default: inRangeWindow = try range()
        }
    }

    /// The condition of phone `client` in a run with `seed`.
    public func draw(seed: UInt64, client: Int) -> PhoneCondition {
        let noise = CounterNoise(seed: seed)
        func pick(_ range: ClosedRange<Double>, _ stream: UInt64) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * noise.uniform(UInt64(client), 0xFA17, 0, stream: stream)
        }
        let slots = budget.lowerBound + Int(Double(budget.count) * noise.uniform(UInt64(client), 0xFA17, 0, stream: 9))
        return PhoneCondition(
            exponent: exponent.map { pick($0, 1) }, shadowing: shadowing.map { pick($0, 2) }, fadingTime: pick(fadingTime, 3),
            receiverOffset: receiverSpread * noise.normal(UInt64(client), 0xFA17, 4), scanInterval: pick(scanInterval, 5),
            exitDelay: pick(exitDelay, 6), wakeWindow: wakeWindow, budget: Swift.min(slots, budget.upperBound),
            inRangeWindow: pick(inRangeWindow, 7), lostEvents: pick(lostEvents, 8))
    }

    /// The true measured power of region `region`'s beacon in a run with `seed` (`nil`: as declared).
    public func truePower(seed: UInt64, region: Int) -> Double? {
        power.map { $0.lowerBound + ($0.upperBound - $0.lowerBound) * CounterNoise(seed: seed).uniform(0xB0A7, UInt64(region), 0) }
    }
}

/// One simulated phone's radio and iOS timings, drawn from a ``PhoneFamily``.
public struct PhoneCondition: Sendable, Hashable, Codable {
    /// The path-loss exponent of its readings (`nil`: the venue's).
    public var exponent: Double?
    /// Shadowing of one reading, dB (`nil`: the venue's).
    public var shadowing: Double?
    /// Seconds a shadowing deviation lasts (0: independent every step).
    public var fadingTime: Double
    /// Its receiver's offset, dB, added to every reading.
    public var receiverOffset: Double
    /// Seconds between background scans while suspended (0: every step).
    public var scanInterval: Double
    /// Seconds from a region's last detection to its exit.
    public var exitDelay: Double
    /// The range each wake's run time is drawn from, seconds.
    public var wakeWindow: ClosedRange<Double>
    /// BeaconFleet's slots.
    public var budget: Int
    /// A region added within this many seconds of its beacon's last detection starts inside.
    public var inRangeWindow: Double
    /// The share of its enters and exits iOS never delivers to the app.
    public var lostEvents: Double

    public init(
        exponent: Double? = nil, shadowing: Double? = nil, fadingTime: Double = 0, receiverOffset: Double = 0, scanInterval: Double = 0,
        exitDelay: Double = 30, wakeWindow: ClosedRange<Double> = 10...10, budget: Int = 18, inRangeWindow: Double = 1,
        lostEvents: Double = 0
    ) {
        self.exponent = exponent
        self.shadowing = shadowing
        self.fadingTime = fadingTime
        self.receiverOffset = receiverOffset
        self.scanInterval = scanInterval
        self.exitDelay = exitDelay
        self.wakeWindow = wakeWindow
        self.budget = budget
        self.inRangeWindow = inRangeWindow
        self.lostEvents = lostEvents
    }

    /// One line: the values that matter, for the per-phone table.
    public var summary: String {
        let radio = [
            exponent.map { "n \(format($0, 2))" }, shadowing.map { "σ \(format($0, 1)) dB" },
            fadingTime > 0 ? "fades \(format(fadingTime, 1)) s" : nil, receiverOffset != 0 ? "rx \(format(receiverOffset, 1)) dB" : nil,
        ].compactMap { $0 }
        // Whole seconds, a fractional bound with its tenths (`wake=0.5...30` is not 1–30 s).
        func seconds(_ value: Double) -> String { format(value, value.rounded() == value ? 0 : 1) }
        let wake =
            wakeWindow.lowerBound == wakeWindow.upperBound
            ? "\(seconds(wakeWindow.lowerBound)) s" : "\(seconds(wakeWindow.lowerBound))–\(seconds(wakeWindow.upperBound)) s"
        let timing = [
            "scan \(format(scanInterval, 1)) s", "exit \(format(exitDelay, 0)) s", "wake \(wake)", "in-range \(format(inRangeWindow, 0)) s",
            "\(budget) slots", lostEvents > 0 ? "\(format(lostEvents * 100, 0)) % lost" : nil,
        ].compactMap { $0 }
        return (radio + timing).joined(separator: ", ")
    }

    private func format(_ value: Double, _ digits: Int) -> String {
        let scale = [1.0, 10, 100][digits]
        let rounded = (value * scale).rounded() / scale
        return digits == 0 ? String(Int(rounded)) : String(rounded)
    }
}
