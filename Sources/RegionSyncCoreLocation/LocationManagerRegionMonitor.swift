#if canImport(CoreLocation)
    import BeaconKit
    public import CoreLocation
    public import Foundation
    import os
    public import RegionSync
    public import WireProtocol

    /// A ``RegionMonitor`` over `CLLocationManager` (region monitoring with a delegate): thin
    /// forwarding only; the rules live in `RegionApplier`. The default back end (`classic` in
    /// reports): unlike `CLMonitor` it wakes the app when the user turns the screen on inside a
    /// region (``notifyEntryStateOnDisplay``), and needs no `CLServiceSession` on iOS 18.
    ///
    /// Create it on the main thread early in `application(_:didFinishLaunchingWithOptions:)`, so
    /// that the delegate is set before iOS delivers the event that launched the app; the events are
    /// buffered until `RegionEventLog.consume(_:)` reads them. It can also range the beacons of a
    /// UUID during a wake (``startRanging(uuid:)``, ``takeRanged()``) for the report.
    @MainActor
    public final class LocationManagerRegionMonitor: NSObject, RegionMonitor {
        /// The manager; this monitor is its delegate.
        public let manager: CLLocationManager
        /// The events iOS delivers, buffered until read.
        public nonisolated let events: AsyncStream<RegionMonitorEvent>
        private nonisolated let continuation: AsyncStream<RegionMonitorEvent>.Continuation
        /// Regions started through this monitor, for `requestState` before iOS lists them.
        private var started: [String: CLBeaconRegion] = [:]
        /// Beacons ranged since the last ``takeRanged()``; the delegate appends from whatever thread
        /// Core Location calls it on (`MainActor.assumeIsolated` would need iOS 17).
        private nonisolated let ranged = OSAllocatedUnfairLock(initialState: [RangedBeacon]())
        /// Whether iOS sends the state when the user turns the screen on inside a region (a wake without a crossing).
        public var notifyEntryStateOnDisplay = true

        /// A monitor over `manager`, which it becomes the delegate of.
        public init(manager: CLLocationManager = CLLocationManager()) {
            self.manager = manager
            (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
            super.init()
            manager.delegate = self
        }

        /// `classic`, for the report.
        public nonisolated var backEnd: RegionMonitorBackEnd? { .classic }

        /// The manager's `authorizationStatus`, for the report.
        public func locationAuthorization() -> LocationAuthorization? {
            LocationAuthorization(manager.authorizationStatus)
        }

        /// Starts monitoring `region` (`startMonitoring(for:)`), notified on entry, exit and display.
        public func startMonitoring(_ region: BeaconRegion) {
            guard let uuid = UUID(uuidString: region.identity.uuid.description) else { return }
            let beaconRegion = CLBeaconRegion(
                beaconIdentityConstraint: Self.constraint(uuid, region.identity), identifier: region.identifier)
            beaconRegion.notifyOnEntry = true
            beaconRegion.notifyOnExit = true
            beaconRegion.notifyEntryStateOnDisplay = notifyEntryStateOnDisplay
            started[region.identifier] = beaconRegion
            manager.startMonitoring(for: beaconRegion)
        }

        /// Stops every region of the manager registered under `identifier`.
        public func stopMonitoring(identifier: String) {
            started[identifier] = nil
            for region in manager.monitoredRegions where region.identifier == identifier {
                manager.stopMonitoring(for: region)
            }
        }

        /// Asks iOS for the region's state; the answer comes through `didDetermineState`.
        public func requestState(identifier: String) {
            if let region = manager.monitoredRegions.first(where: { $0.identifier == identifier }) ?? started[identifier] {
                manager.requestState(for: region)
            }
        }

        /// The manager's `monitoredRegions`: every region of the app, its own included.
        public func monitoredRegions() -> [MonitoredRegion] {
            manager.monitoredRegions.map { region in
                guard let beacon = region as? CLBeaconRegion, let uuid = BeaconUUID(beacon.uuid.uuidString) else {
                    return MonitoredRegion(identifier: region.identifier, identity: nil)
                }
                let identity = RegionIdentity(uuid: uuid, major: beacon.major?.uint16Value, minor: beacon.minor?.uint16Value)
                return MonitoredRegion(identifier: region.identifier, identity: identity)
            }
        }

        /// Ranges every beacon of `uuid` (while the app runs: in the foreground, or during a wake).
        public func startRanging(uuid: UUID) {
            manager.startRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: uuid))
        }

        /// Stops ranging `uuid`.
        public func stopRanging(uuid: UUID) {
            manager.stopRangingBeacons(satisfying: CLBeaconIdentityConstraint(uuid: uuid))
        }

        /// The beacons ranged since the last call, for the report.
        public func takeRanged() -> [RangedBeacon] {
            ranged.withLock { ranged in
                defer { ranged.removeAll() }
                return ranged
            }
        }

        static func constraint(_ uuid: UUID, _ identity: RegionIdentity) -> CLBeaconIdentityConstraint {
            switch (identity.major, identity.minor) {
            case (let major?, let minor?): CLBeaconIdentityConstraint(uuid: uuid, major: major, minor: minor)
            case (let major?, nil): CLBeaconIdentityConstraint(uuid: uuid, major: major)
            default: CLBeaconIdentityConstraint(uuid: uuid)
            }
        }
    }

    extension LocationManagerRegionMonitor: CLLocationManagerDelegate {
        /// An enter, as an event.
        public nonisolated func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
            continuation.yield(.enter(identifier: region.identifier))
        }

        /// An exit, as an event.
        public nonisolated func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
            continuation.yield(.exit(identifier: region.identifier))
        }

        /// A state (asked for, or sent when the screen turns on inside a region), as an event.
        public nonisolated func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion)
        {
            let mapped: RegionState =
                switch state {
                case .inside: .inside
                case .outside: .outside
                default: .unknown
                }
            continuation.yield(.state(identifier: region.identifier, mapped))
        }

        /// A refused region (typically code 5, past the limit), as a failure event.
        public nonisolated func locationManager(
            _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
        ) {
            let code = (error as? CLError)?.code.rawValue ?? (error as NSError).code
            continuation.yield(
                .failure(identifier: region?.identifier ?? "", RegionMonitorError(code: code, message: error.localizedDescription)))
        }

        /// Ranged beacons, kept for the next ``LocationManagerRegionMonitor/takeRanged()``.
        public nonisolated func locationManager(
            _ manager: CLLocationManager, didRange beacons: [CLBeacon], satisfying constraint: CLBeaconIdentityConstraint
        ) {
            let proximity: [CLProximity: String] = [.immediate: "immediate", .near: "near", .far: "far", .unknown: "unknown"]
            let reported = beacons.map { beacon in
                RangedBeacon(
                    uuid: beacon.uuid.uuidString, major: beacon.major.uint16Value, minor: beacon.minor.uint16Value,
                    rssi: beacon.rssi, accuracy: beacon.accuracy, proximity: proximity[beacon.proximity])
            }
            ranged.withLock { $0.append(contentsOf: reported) }
        }
    }
#endif
