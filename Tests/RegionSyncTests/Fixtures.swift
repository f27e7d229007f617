import BeaconKit
import RegionSync
import RegionSyncTesting
import WireProtocol

/// The venue's UUID in every test.
let venueUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
let configuration = RegionSyncConfiguration()

/// Region `r<i>` with beacon (1, i), or the given minor.
func ref(_ index: Int, minor: UInt16? = nil) -> RegionRef {
    RegionRef(id: "r\(index)", uuid: venueUUID, major: 1, minor: minor ?? UInt16(index))
}

/// The beacon of `ref(index)`.
func beacon(_ index: Int) -> BeaconIdentity {
    BeaconIdentity(uuid: venueUUID, major: 1, minor: UInt16(index))!
}

/// A `regions` message whose diff leads from `previous` to `regions`, as the coordinator writes it.
func message(_ version: UInt64, _ regions: [RegionRef], after previous: [RegionRef] = []) -> RegionsMessage {
    let before = Dictionary(previous.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    let after = Set(regions.map(\.id))
    return RegionsMessage(
        version: version, budget: 20, regions: regions,
        add: regions.filter { before[$0.id] != $0 },
        remove: previous.map(\.id).filter { id in !after.contains(id) || before[id] != regions.first { $0.id == id } },
        position: nil, reason: "moved")
}

/// A fake iOS, an applier on one virtual clock, and the log of the fake's events.
struct World {
    let clock = VirtualClock()
    let fake: FakeRegionMonitor<VirtualClock>
    let applier: RegionApplier<VirtualClock>

    /// `adjust` changes `options` first (a test's own iOS rule or limit).
    init(
        _ options: FakeRegionMonitor<VirtualClock>.Options = .init(), configuration: RegionSyncConfiguration = configuration,
        store: any RegionSyncStore = InMemoryRegionSyncStore(),
        adjusting adjust: (inout FakeRegionMonitor<VirtualClock>.Options) -> Void = { _ in }
    ) {
        var options = options
        adjust(&options)
        fake = FakeRegionMonitor(options: options, clock: clock)
        applier = RegionApplier(monitor: fake, store: store, configuration: configuration, clock: clock)
    }

    /// BeaconFleet's region ids iOS holds, in iOS's order.
    func ours() async -> [String] {
        await fake.monitoredRegions().compactMap { configuration.region(forIdentifier: $0.identifier) }
    }

    /// BeaconFleet's regions iOS holds with their identities, by id.
    func oursWithIdentity() async -> [String: RegionIdentity] {
        var result: [String: RegionIdentity] = [:]
        for region in await fake.monitoredRegions() {
            if let id = configuration.region(forIdentifier: region.identifier), let identity = region.identity { result[id] = identity }
        }
        return result
    }

    /// The calls the fake received, as text (`start r1`, `stop r0`, `state r1`), without the prefix.
    func calls(from index: Int = 0) async -> [String] {
        let calls = await fake.calls
        return calls[index...].map { call in
            let id = configuration.region(forIdentifier: call.identifier) ?? call.identifier
            switch call {
            case .start: return "start \(id)"
            case .stop: return "stop \(id)"
            case .requestState: return "state \(id)"
            }
        }
    }

    /// The identifier iOS has for region `id`.
    func identifier(_ id: String) -> String { configuration.identifier(forRegion: id) }
}

/// The two flavours of the fake, with either refusal past the limit.
let everyFakeVariant: [FakeRegionMonitor<VirtualClock>.Options] = FakeRegionMonitor<VirtualClock>.Options.Flavour.allCases.flatMap {
    flavour in
    FakeRegionMonitor<VirtualClock>.Options.OverLimit.allCases.map {
        FakeRegionMonitor<VirtualClock>.Options(flavour: flavour, overLimit: $0)
    }
}
