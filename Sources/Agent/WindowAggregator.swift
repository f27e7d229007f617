public import BeaconKit
import Foundation
public import WireProtocol

/// One closed aggregation window: its own start and end (as heard, microseconds since 1970) and a
/// sighting per beacon heard in it.
public struct ClosedWindow: Sendable, Equatable {
    public var startMicros: Int64
    public var endMicros: Int64
    public var sightings: [Sighting]
}

/// Aggregates beacon observations per beacon per window.
///
/// Windows lie on a fixed grid of `window` length (a window starts at a multiple of it), driven by
/// the observations' own times (or by the source's clock while silent, through ``advance(to:emit:)``),
/// so a replay produces the same windows however fast it runs. Per beacon and window it keeps the
/// count, the filtered mean RSSI (see ``filteredMean(_:)``), the strongest RSSI and the measured
/// power; the distance comes from the filtered mean through the log-distance model. Nothing carries
/// over from one window to the next (smoothing across windows is the coordinator's business), so the
/// memory it holds is bounded by the beacons heard in one window.
///
/// A beacon is the triple (format, identity, address): four advertisers of one iBeacon identity are
/// four sightings.
public struct WindowAggregator {
    struct Key: Hashable, Comparable {
        /// The format's ``BeaconFormat/bit``: sightings are ordered by it.
        var format: UInt8
        var identity: BeaconIdentity
        var address: BluetoothAddress

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.format, lhs.identity, lhs.address) < (rhs.format, rhs.identity, rhs.address)
        }
    }

    struct Entry {
        var count: Int = 0
        var rssiCount: Int = 0
        var rssiSum: Int = 0
        var minRSSI: Int = Int.max
        var maxRSSI: Int = Int.min
        var txPower: Int?
    }

    /// The window length, microseconds (changed by ``retime(windowMicros:)``).
    public private(set) var windowMicros: Int64
    /// A length asked for by ``retime(windowMicros:)`` while a window was open: taken when it closes.
    private var pendingWindowMicros: Int64?
    /// Where the current window ends: its start plus the length, except for the one window after a
    /// change of length, which runs from the old grid's boundary to the new grid's next one.
    private var windowEnd: Int64 = 0
    /// Turns the filtered mean RSSI and the measured power at 1 m into metres (BeaconKit's models).
    public let distanceModel: any DistanceModel
    /// At most this many empty windows are published for a silence (a longer one, such as a gap in a
    /// capture or a clock jump, skips ahead to the next advertisement).
    public let maximumEmptyWindows: Int
    private var entries: [Key: Entry] = [:]
    /// The current window's start, once something opened it.
    public private(set) var windowStart: Int64?
    /// Observations counted in the current window.
    public private(set) var observationsInWindow = 0

    public init(
        windowMicros: Int64 = 1_000_000, distanceModel: any DistanceModel = LogDistanceModel(exponent: 2.0), maximumEmptyWindows: Int = 60
    ) {
        self.windowMicros = max(1000, windowMicros)
        self.distanceModel = distanceModel
        self.maximumEmptyWindows = maximumEmptyWindows
    }

    /// The start of the grid window containing `time`.
    @inline(__always)
    func gridStart(_ time: Int64) -> Int64 {
        let (quotient, remainder) = time.quotientAndRemainder(dividingBy: windowMicros)
        return (remainder < 0 ? quotient - 1 : quotient) * windowMicros
    }

    /// Closes every window that ends at or before `time`, calling `emit` for each in order (empty
    /// windows included, up to ``maximumEmptyWindows`` in a row), and opens the window containing `time`.
    /// A time before the current window (a clock step back) counts into the current window.
    @inline(__always)
    public mutating func advance(to time: Int64, emit: (ClosedWindow) throws -> Void) rethrows {
        guard let start = windowStart else {
            open(at: time)
            return
        }
        if time < windowEnd { return }
        let end = windowEnd
        try emit(close(start: start, end: end))
        if let pending = pendingWindowMicros {
            windowMicros = pending
            pendingWindowMicros = nil
        }
        // The next window starts where this one ended and ends on the (possibly new) grid.
        var next = end
        var nextEnd = gridStart(end) + windowMicros
        var empties = 0
        while time >= nextEnd, empties < maximumEmptyWindows {
            try emit(ClosedWindow(startMicros: next, endMicros: nextEnd, sightings: []))
            next = nextEnd
            nextEnd += windowMicros
            empties += 1
        }
        if time >= nextEnd {
            open(at: time)  // a long silence: skip ahead
        } else {
            windowStart = next
            windowEnd = nextEnd
        }
    }

    /// Opens the grid window containing `time`.
    @inline(__always)
    private mutating func open(at time: Int64) {
        let start = gridStart(time)
        windowStart = start
        windowEnd = start + windowMicros
    }

    /// Changes the window length to `windowMicros` (at least 1 ms) without overlap or gap: at once
    /// when no window is open, else when the current window closes; the window after it runs from
    /// there to the new grid's next boundary, and the grid's windows follow.
    public mutating func retime(windowMicros newLength: Int64) {
        let length = max(1000, newLength)
        if windowStart == nil {
            windowMicros = length
            pendingWindowMicros = nil
        } else {
            pendingWindowMicros = length == windowMicros ? nil : length
        }
    }

    /// Counts `observation` into the current window (opening one if none is open).
    @inline(__always)
    public mutating func add(_ observation: BeaconObservation) {
        if windowStart == nil { open(at: observation.timeMicros) }
        let key = Key(format: observation.format.bit, identity: observation.identity, address: observation.address)
        let rssi = observation.rssi
        entries[key, default: Entry()].update { entry in
            entry.count += 1
            if let tx = observation.txPower { entry.txPower = tx }
            // A report without RSSI (0x7F) counts, but says nothing about the signal.
            guard rssi != BeaconObservation.unknownRSSI else { return }
            entry.rssiCount += 1
            entry.rssiSum += rssi
            if rssi < entry.minRSSI { entry.minRSSI = rssi }
            if rssi > entry.maxRSSI { entry.maxRSSI = rssi }
        }
        observationsInWindow += 1
    }

    /// Closes the current window now (end of a capture, or shutdown) and returns it; `nil` when no
    /// window is open.
    public mutating func flush() -> ClosedWindow? {
        guard let start = windowStart else { return nil }
        windowStart = nil
        let closed = close(start: start, end: windowEnd)
        if let pending = pendingWindowMicros {
            windowMicros = pending
            pendingWindowMicros = nil
        }
        return closed
    }

    private mutating func close(start: Int64, end: Int64) -> ClosedWindow {
        var heard: [(Key, Entry)] = []
        heard.reserveCapacity(entries.count)
        for (key, entry) in entries { heard.append((key, entry)) }
        entries.removeAll(keepingCapacity: true)
        heard.sort { $0.0 < $1.0 }
        observationsInWindow = 0
        return ClosedWindow(startMicros: start, endMicros: end, sightings: heard.map { sighting(key: $0.0, entry: $0.1) })
    }

    /// The window's filtered mean RSSI: the mean without the strongest and the weakest sample once
    /// there are five or more (one reflection or one collision does not move it), the plain mean below.
    static func filteredMean(_ entry: Entry) -> Double? {
        guard entry.rssiCount > 0 else { return nil }
        if entry.rssiCount >= 5 {
            return Double(entry.rssiSum - entry.minRSSI - entry.maxRSSI) / Double(entry.rssiCount - 2)
        }
        return Double(entry.rssiSum) / Double(entry.rssiCount)
    }

    private func sighting(key: Key, entry: Entry) -> Sighting {
        let format = BeaconFormat(bit: key.format) ?? .eddystoneUnknown
        // With no RSSI at all in the window (every report said "not available"), report the floor.
        let mean = Self.filteredMean(entry)
        let rssi = mean.map { ($0 * 10).rounded() / 10 } ?? -127
        var sighting = Sighting(
            format: format.name, address: key.address.description, rssi: rssi, rssiMax: mean == nil ? -127 : entry.maxRSSI,
            count: entry.count, txPower: entry.txPower)
        sighting.setIdentity(key.identity, format: format)
        if let tx = entry.txPower, let mean {
            // Eddystone states its power at 0 m; the model wants it at 1 m (41 dB of free-space loss).
            let atOneMetre = format == .iBeacon || format == .altBeacon ? tx : tx - 41
            if let metres = distanceModel.distance(rssi: mean, measuredPower: Int8(clamping: atOneMetre)), metres.isFinite {
                sighting.distance = (metres * 100).rounded() / 100
            }
        }
        return sighting
    }
}

extension WindowAggregator.Entry {
    @inline(__always) mutating func update(_ body: (inout Self) -> Void) { body(&self) }
}
