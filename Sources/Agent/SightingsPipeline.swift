import BeaconKit
import Foundation
import Synchronization

/// Reads HCI packets from a source, decodes beacons, filters them and aggregates them per window,
/// handing each closed window to `sink` with the source position it accounts for.
///
/// It runs synchronously on a thread of its own (``run()``): the per-report path (decode, filter,
/// aggregate) takes no lock and allocates nothing for a beacon already seen. ``requestStop()``
/// from any thread makes it flush the current window and return.
public final class SightingsPipeline: @unchecked Sendable {
    /// Receives each closed window and the number of source packets it (and every earlier window)
    /// accounts for.
    public typealias Sink = (_ window: ClosedWindow, _ position: UInt64) -> Void

    private let source: any HCIEventSource
    private let counters: PipelineCounters
    /// A filter and window length asked for by ``update(filter:windowMicros:)``, not yet taken.
    private let pending = LockedValue<(filter: BeaconFilter, windowMicros: Int64)?>(nil)
    /// Whether ``pending`` holds one: read (relaxed, no lock) once per packet.
    private let updated = Atomic<Bool>(false)
    private let sink: Sink
    private let stopFlag = StopFlag()
    /// Between runs; ``run()`` works on local copies (see ``Progress``).
    private var decoder = AdvertisementDecoder()
    private var progress: Progress

    /// Everything the per-report path changes. ``run()`` keeps it in a local variable: the
    /// compiler checks exclusive access to a local statically, whereas every access to a class's
    /// stored property costs a dynamic check (a tenth of the pipeline's time when these were
    /// properties).
    private struct Progress {
        var filter: BeaconFilter
        var aggregator: WindowAggregator
        var aggregated: UInt64 = 0
        var filtered: UInt64 = 0
        var windows: UInt64 = 0
    }

    /// - Parameters:
    ///   - source: where packets come from; the pipeline closes it when it returns.
    ///   - filter: which beacons to keep.
    ///   - aggregator: the window aggregator (its window length decides the batches).
    ///   - counters: where the pipeline publishes its counts.
    ///   - sink: called on the pipeline's thread for every closed window, in order.
    public init(
        source: any HCIEventSource, filter: BeaconFilter, aggregator: WindowAggregator, counters: PipelineCounters, sink: @escaping Sink
    ) {
        self.source = source
        self.progress = Progress(filter: filter, aggregator: aggregator)
        self.counters = counters
        self.sink = sink
    }

    /// Replaces the filter and the window length while the pipeline runs; safe from any thread.
    /// The filter applies from the next packet on; a new window length from the end of the current window (``WindowAggregator/retime(windowMicros:)``).
    public func update(filter: BeaconFilter, windowMicros: Int64) {
        pending.update { $0 = (filter, windowMicros) }
        updated.store(true, ordering: .releasing)
    }

    /// Takes a pending update into `progress`.
    private func takeUpdate(into progress: inout Progress) {
        guard updated.load(ordering: .relaxed) else { return }
        updated.store(false, ordering: .relaxed)
        guard
            let update = pending.update({ pending in
                defer { pending = nil }; return pending
            })
        else { return }
        progress.filter = update.filter
        progress.aggregator.retime(windowMicros: update.windowMicros)
    }

    /// Asks ``run()`` to flush its window and return; safe from any thread.
    public func requestStop() {
        stopFlag.set()
    }

    /// Reads until the source ends or a stop is requested, then flushes the current window.
    /// - Returns: `true` when the source reached its end, `false` when stopped.
    @discardableResult
    public func run() throws -> Bool {
        var decoder = self.decoder
        var progress = self.progress
        defer {
            self.decoder = decoder
            self.progress = progress
            source.close()
            counters.publish(counts(progress, decoder))
        }
        var reachedEnd = false
        var sinceCheck = 0
        var closed: [(ClosedWindow, UInt64)] = []  // windows closed while reading a packet
        loop: while true {
            sinceCheck += 1
            if sinceCheck >= 256 {
                sinceCheck = 0
                if stopFlag.isSet { break }
            }
            takeUpdate(into: &progress)
            let status = try source.read(timeout: 0.1) { time, packet in
                handle(time: time, packet: packet, decoder: &decoder, progress: &progress, closed: &closed)
            }
            for (window, position) in closed { emit(window, position: position, progress: &progress, decoder: decoder) }
            closed.removeAll(keepingCapacity: true)
            switch status {
            case .packet:
                continue
            case .idle(let now):
                if stopFlag.isSet { break loop }
                takeUpdate(into: &progress)
                let position = source.position
                progress.aggregator.advance(to: now) { closed.append(($0, position)) }
                for (window, position) in closed { emit(window, position: position, progress: &progress, decoder: decoder) }
                closed.removeAll(keepingCapacity: true)
                counters.publish(counts(progress, decoder))
            case .end:
                reachedEnd = true
                break loop
            }
        }
        if let window = progress.aggregator.flush() { emit(window, position: source.position, progress: &progress, decoder: decoder) }
        return reachedEnd
    }

    @inline(__always)
    private func handle(
        time: Int64, packet: UnsafeRawBufferPointer, decoder: inout AdvertisementDecoder, progress: inout Progress,
        closed: inout [(ClosedWindow, UInt64)]
    ) {
        // Windows that end before this packet close first; the packet itself belongs to the next.
        if packet.count > 1, packet[0] == HCIPacketType.event.rawValue {
            let before = source.position - 1
            progress.aggregator.advance(to: time) { closed.append(($0, before)) }
        }
        let filter = progress.filter
        decoder.decode(h4Packet: packet, timestampMicroseconds: time) { advertisement in
            guard let beacon = advertisement.beacon,
                let observation = BeaconObservation(beacon, report: advertisement.report, timeMicros: time)
            else { return }
            guard filter.admits(observation) else {
                progress.filtered += 1
                return
            }
            progress.aggregated += 1
            progress.aggregator.add(observation)
        }
    }

    /// The counts so far, from the decoder's exact statistics and the pipeline's own.
    private func counts(_ progress: Progress, _ decoder: AdvertisementDecoder) -> PipelineCounts {
        var counts = PipelineCounts()
        counts.decoded = decoder.statistics
        counts.malformedPackets = source.malformedPackets
        counts.aggregated = progress.aggregated
        counts.filtered = progress.filtered
        counts.windows = progress.windows
        return counts
    }

    private func emit(_ window: ClosedWindow, position: UInt64, progress: inout Progress, decoder: AdvertisementDecoder) {
        progress.windows += 1
        counters.publish(counts(progress, decoder))
        sink(window, position)
    }
}

extension BeaconObservation {
    /// The observation of `beacon` in `report`; `nil` for Eddystone frames of unknown type.
    init?(_ beacon: Beacon, report: AdvertisingReport, timeMicros: Int64) {
        // A report without RSSI (0x7F) still counts; the aggregator leaves its signal figures alone.
        let rssi = report.rssi.map(Int.init) ?? Self.unknownRSSI
        guard beacon.format != .eddystoneUnknown else { return nil }
        self.init(
            format: beacon.format, identity: beacon.identity, address: report.address, rssi: rssi,
            txPower: beacon.txPower.map(Int.init), timeMicros: timeMicros)
    }
}
