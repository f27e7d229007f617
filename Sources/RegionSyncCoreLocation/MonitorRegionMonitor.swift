#if canImport(CoreLocation)
    import BeaconKit
    public import CoreLocation
    public import Foundation
    public import RegionSync

    /// A ``RegionMonitor`` over `CLMonitor` (iOS 17+): thin forwarding only; the rules live in
    /// `RegionApplier` (which stops before it starts, since an add over a live identifier is
    /// silently ignored) and `RegionEventLog` (which drops states re-delivered at launch).
    ///
    /// `requestState` answers from the condition's record (its last event); the state of a newly
    /// added condition arrives on the monitor's events. An event with `conditionLimitExceeded`
    /// (iOS 18) is reported as a failure with code 5.
    @available(iOS 17.0, macOS 14.0, *)
    public final class MonitorRegionMonitor: RegionMonitor {
        /// The `CLMonitor`.
        public let monitor: CLMonitor
        public let events: AsyncStream<RegionMonitorEvent>
        private let continuation: AsyncStream<RegionMonitorEvent>.Continuation
        private let pump: Task<Void, Never>

        /// Opens the `CLMonitor` named `name` (alphanumeric; one open instance per name).
        public static func open(name: String = "BeaconFleet") async -> MonitorRegionMonitor {
            MonitorRegionMonitor(monitor: await CLMonitor(name))
        }

        /// A monitor over an open `CLMonitor`; start it once, early at launch, so no event is missed.
        public init(monitor: CLMonitor) {
            self.monitor = monitor
            let (events, continuation) = AsyncStream.makeStream(of: RegionMonitorEvent.self, bufferingPolicy: .unbounded)
            self.events = events
            self.continuation = continuation
            pump = Task {
                do {
                    for try await event in await monitor.events {
                        continuation.yield(Self.translate(event))
                    }
                } catch {}
                continuation.finish()
            }
        }

        deinit {
            pump.cancel()
        }

        public func startMonitoring(_ region: BeaconRegion) async {
            guard let uuid = UUID(uuidString: region.identity.uuid.description) else { return }
            let condition: CLMonitor.BeaconIdentityCondition =
                switch (region.identity.major, region.identity.minor) {
                case (let major?, let minor?): CLMonitor.BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
                case (let major?, nil): CLMonitor.BeaconIdentityCondition(uuid: uuid, major: major)
                default: CLMonitor.BeaconIdentityCondition(uuid: uuid)
                }
            await monitor.add(condition, identifier: region.identifier)
        }

        public func stopMonitoring(identifier: String) async {
            await monitor.remove(identifier)
        }

        public func requestState(identifier: String) async {
            guard let record = await monitor.record(for: identifier) else { return }
            continuation.yield(.state(identifier: identifier, Self.state(record.lastEvent.state)))
        }

        public func monitoredRegions() async -> [MonitoredRegion] {
            var held: [MonitoredRegion] = []
            for identifier in await monitor.identifiers {
                let record = await monitor.record(for: identifier)
                let condition = record?.condition as? CLMonitor.BeaconIdentityCondition
                let identity = condition.flatMap { condition in
                    BeaconUUID(condition.uuid.uuidString).map {
                        RegionIdentity(uuid: $0, major: condition.major, minor: condition.minor)
                    }
                }
                held.append(
                    MonitoredRegion(
                        identifier: identifier, identity: identity,
                        isUnmonitored: record.map { Self.state($0.lastEvent.state) == .unmonitored } ?? false))
            }
            return held
        }

        static func translate(_ event: CLMonitor.Event) -> RegionMonitorEvent {
            if #available(iOS 18.0, macOS 15.0, *), event.conditionLimitExceeded {
                return .failure(
                    identifier: event.identifier,
                    RegionMonitorError(code: RegionMonitorError.regionMonitoringFailure, message: "condition limit exceeded"))
            }
            return .state(identifier: event.identifier, state(event.state))
        }

        static func state(_ state: CLMonitor.Event.State) -> RegionState {
            switch state {
            case .satisfied: return .inside
            case .unsatisfied: return .outside
            case .unknown: return .unknown
            default:
                if #available(iOS 17.2, macOS 14.2, *), state == .unmonitored { return .unmonitored }
                return .unknown
            }
        }
    }
#endif
