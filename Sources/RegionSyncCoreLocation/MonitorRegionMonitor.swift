// Not on Mac Catalyst, where CLMonitor.BeaconIdentityCondition is unavailable.
#if canImport(CoreLocation) && !targetEnvironment(macCatalyst)
    import BeaconKit
    public import CoreLocation
    import Foundation
    import os
    public import RegionSync
    public import WireProtocol

    /// A ``RegionMonitor`` over `CLMonitor` (iOS 17+, macOS 14+; `monitor` in reports): thin
    /// forwarding only; the rules live in `RegionApplier` (which stops before it starts, since an
    /// add over a live identifier is silently ignored) and `RegionEventLog` (which drops states
    /// re-delivered at launch).
    ///
    /// - On iOS 18 and later it holds a `CLServiceSession` requiring Always authorization from the
    ///   moment it is opened: without one, `CLMonitor` delivers no events while the app is not in
    ///   use (its diagnostics read `serviceSessionRequired`). Open it at every launch, background
    ///   launches included, early in `application(_:didFinishLaunchingWithOptions:)`.
    /// - `requestState` answers from the condition's record once iOS knows the state (a condition
    ///   just added reads `.unknown` until then), or `.unknown` after ``stateTimeout``.
    /// - The events are read from `CLMonitor`'s `events` for the monitor's lifetime; when that
    ///   sequence fails, it is read again after a second.
    /// - An event with `conditionLimitExceeded` (iOS 18) is reported as a failure with code 5.
    /// - The identity of each condition it adds is kept in `UserDefaults` beside `CLMonitor`'s own
    ///   store (``identitiesKey``): `BeaconIdentityCondition`'s `uuid`, `major` and `minor` are
    ///   not in iOS 17.0's Core Location (its SDK lacks them, and an app reading them launches
    ///   only on 17.2 and later), and without identities every held condition would look changed
    ///   and be added again at each launch. A condition held without one (added by other code) is
    ///   listed without identity, so the applier replaces it once.
    ///
    /// `CLMonitor` has no `notifyEntryStateOnDisplay`: a visitor who stops and looks at the screen
    /// does not wake the app. ``LocationManagerRegionMonitor`` stays the default back end. Not
    /// compiled for Mac Catalyst, where `CLMonitor.BeaconIdentityCondition` is unavailable.
    @available(iOS 17.0, macOS 14.0, *)
    public final class MonitorRegionMonitor: RegionMonitor {
        /// The `CLMonitor`.
        public let monitor: CLMonitor
        /// The events iOS delivers, buffered until read.
        public let events: AsyncStream<RegionMonitorEvent>
        /// How long `requestState` waits for iOS to know a condition's state before it answers `.unknown`.
        public let stateTimeout: Duration
        private let continuation: AsyncStream<RegionMonitorEvent>.Continuation
        private let pump: Task<Void, Never>
        /// The `CLServiceSession` held while this monitor lives (iOS 18+); its type is not in the
        /// iOS 17 SDK, hence `any Sendable` (see ``serviceSession``).
        private let session: (any Sendable)?
        /// The identity of every condition added, by identifier, as `RegionIdentity.description`.
        private let identities: OSAllocatedUnfairLock<[String: String]>

        /// The `UserDefaults` key under which the conditions' identities are kept.
        public static let identitiesKey = "RegionSync.MonitorRegionMonitor.identities"

        /// Opens the `CLMonitor` named `name` (alphanumeric; one open instance per name), holding a
        /// `CLServiceSession` on iOS 18 and later when `holdingServiceSession` (taken before
        /// `CLMonitor` opens, so within moments of the launch).
        public static func open(
            name: String = "BeaconFleet", holdingServiceSession: Bool = true, stateTimeout: Duration = .seconds(3)
        ) async -> MonitorRegionMonitor {
            let session = holdingServiceSession ? makeServiceSession() : nil
            return MonitorRegionMonitor(monitor: await CLMonitor(name), session: session, stateTimeout: stateTimeout)
        }

        /// A monitor over an open `CLMonitor`; make it once, early at launch, so no event is missed.
        /// On iOS 18 and later it holds a `CLServiceSession` when `holdingServiceSession`.
        public convenience init(monitor: CLMonitor, holdingServiceSession: Bool = true, stateTimeout: Duration = .seconds(3)) {
            self.init(monitor: monitor, session: holdingServiceSession ? Self.makeServiceSession() : nil, stateTimeout: stateTimeout)
        }

        private init(monitor: CLMonitor, session: (any Sendable)?, stateTimeout: Duration) {
            self.monitor = monitor
            self.session = session
            self.stateTimeout = stateTimeout
            identities = OSAllocatedUnfairLock(
                initialState: UserDefaults.standard.dictionary(forKey: Self.identitiesKey) as? [String: String] ?? [:])
            let (events, continuation) = AsyncStream.makeStream(of: RegionMonitorEvent.self, bufferingPolicy: .unbounded)
            self.events = events
            self.continuation = continuation
            pump = Task {
                await MonitorEventPump.run(
                    subscribe: { await monitor.events }, deliver: { continuation.yield(Self.translate($0)) },
                    retryDelay: .seconds(1), clock: ContinuousClock())
                continuation.finish()
            }
        }

        deinit {
            pump.cancel()
        }

        /// A `CLServiceSession` requiring Always authorization on iOS 18 and later; `nil` before,
        /// on macOS (where Core Location has none), and when built against an SDK without it.
        /// `canImport(CoreLocation, _version: 40)`: Core Location's Swift module is version 40 in
        /// the iOS 18.0 SDK, the first with `CLServiceSession` (28 in iOS 17.0, 36 in iOS 17.5).
        static func makeServiceSession() -> (any Sendable)? {
            #if os(iOS) && canImport(CoreLocation, _version: 40)
                if #available(iOS 18.0, *) { return CLServiceSession(authorization: .always) }
            #endif
            return nil
        }

        #if os(iOS) && canImport(CoreLocation, _version: 40)
            /// The `CLServiceSession` this monitor holds (iOS 18+), for its `diagnostics`; `nil`
            /// when it was opened without one.
            @available(iOS 18.0, *)
            public var serviceSession: CLServiceSession? { session as? CLServiceSession }
        #endif

        /// `monitor`, for the report.
        public var backEnd: RegionMonitorBackEnd? { .monitor }

        /// The app's authorization, read from a location manager on the main actor, for the report.
        public func locationAuthorization() async -> LocationAuthorization? {
            await LocationAuthorization.current()
        }

        /// Adds a beacon identity condition for `region` under its identifier.
        public func startMonitoring(_ region: BeaconRegion) async {
            guard let uuid = UUID(uuidString: region.identity.uuid.description) else { return }
            let condition: CLMonitor.BeaconIdentityCondition =
                switch (region.identity.major, region.identity.minor) {
                case (let major?, let minor?): CLMonitor.BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
                case (let major?, nil): CLMonitor.BeaconIdentityCondition(uuid: uuid, major: major)
                default: CLMonitor.BeaconIdentityCondition(uuid: uuid)
                }
            remember(region.identity, for: region.identifier)
            await monitor.add(condition, identifier: region.identifier)
        }

        /// Removes the condition registered under `identifier`.
        public func stopMonitoring(identifier: String) async {
            await monitor.remove(identifier)
            remember(nil, for: identifier)
        }

        /// Keeps (or forgets) the identity of the condition under `identifier`, in memory and in `UserDefaults`.
        private func remember(_ identity: RegionIdentity?, for identifier: String) {
            identities.withLock { identities in
                guard identities[identifier] != identity?.description else { return }
                identities[identifier] = identity?.description
                UserDefaults.standard.set(identities, forKey: Self.identitiesKey)
            }
        }

        /// Answers with the condition's state as its record holds it, once iOS knows it (read every
        /// 100 ms, `.unknown` after ``stateTimeout``); returns at once, the answer comes as an event.
        public func requestState(identifier: String) async {
            let monitor = self.monitor
            let continuation = self.continuation
            let timeout = stateTimeout
            Task {
                let state = await MonitorEventPump.knownState(timeout: timeout, interval: .milliseconds(100), clock: ContinuousClock()) {
                    await monitor.record(for: identifier).map { Self.state($0.lastEvent.state) }
                }
                if let state { continuation.yield(.state(identifier: identifier, state)) }
            }
        }

        /// Every condition the `CLMonitor` holds, each with the identity kept when it was added (a
        /// beacon condition added elsewhere has none), and marked when iOS gave it up (`.unmonitored`).
        public func monitoredRegions() async -> [MonitoredRegion] {
            var held: [MonitoredRegion] = []
            let known = identities.withLock { $0 }
            for identifier in await monitor.identifiers {
                let record = await monitor.record(for: identifier)
                let identity =
                    record?.condition is CLMonitor.BeaconIdentityCondition ? known[identifier].flatMap(RegionIdentity.init) : nil
                held.append(
                    MonitoredRegion(
                        identifier: identifier, identity: identity,
                        isUnmonitored: record.map { Self.state($0.lastEvent.state) == .unmonitored } ?? false))
            }
            return held
        }

        static func translate(_ event: CLMonitor.Event) -> RegionMonitorEvent {
            #if canImport(CoreLocation, _version: 40)
                if #available(iOS 18.0, macOS 15.0, *), event.conditionLimitExceeded {
                    return .failure(
                        identifier: event.identifier,
                        RegionMonitorError(code: RegionMonitorError.regionMonitoringFailure, message: "condition limit exceeded"))
                }
            #endif
            return .state(identifier: event.identifier, state(event.state))
        }

        /// `CLMonitoringStateUnmonitored` (iOS 17.2, macOS 14.2), by its value: the iOS 17.0 SDK does not name it.
        static let unmonitored: UInt = 3

        static func state(_ state: CLMonitor.Event.State) -> RegionState {
            switch state {
            case .satisfied: .inside
            case .unsatisfied: .outside
            case .unknown: .unknown
            default: state.rawValue == unmonitored ? .unmonitored : .unknown
            }
        }
    }
#endif
