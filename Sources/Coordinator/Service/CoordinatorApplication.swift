public import HomeAssistant
public import Logging
public import MQTT
public import ServiceLifecycle
import Synchronization
public import UnixSignals

/// The coordinator process, assembled in this one place from a ``CoordinatorConfiguration``: the
/// MQTT client, the ``CoordinatorService``, the ``GatewayDirectory``, the ``HomeAssistantBridge`` with its own connection
/// when ``CoordinatorConfiguration/homeAssistant`` is set, and the HTTP server
/// (``CoordinatorHTTPServer``) when ``CoordinatorConfiguration/http`` is, in one `ServiceGroup` in
/// that order: each client starts before the services that use it and stops after them.
///
/// Modelled on Hummingbird's `Application`: ``run()`` runs the group as a `Service` (so it can sit in
/// a larger group, as `demo` puts it beside its walkers, and shuts down gracefully with it), and
/// ``runService(gracefulShutdownSignals:)`` runs it alone until SIGTERM or SIGINT, as
/// `beaconfleet coordinator` does:
///
/// ```swift
/// let configuration = try CoordinatorConfiguration(broker: url, topologyDirectory: dir, topics: try Topics())
/// try await CoordinatorApplication(configuration: configuration, logger: logger).runService()
/// ```
///
/// An application runs once.
public final class CoordinatorApplication: Service, Sendable {
    /// What it was built from.
    public let configuration: CoordinatorConfiguration
    /// The coordinator's own connection (sightings, reports, statuses; carries the will).
    public let client: MQTTClient
    /// The coordinator service.
    public let service: CoordinatorService
    /// The Home Assistant bridge, when ``CoordinatorConfiguration/homeAssistant`` is set.
    public let homeAssistant: HomeAssistantBridge?
    /// The gateways' configurations and statuses (``GatewayDirectory``).
    public let gateways: GatewayDirectory
    /// The core the HTTP server and the bridge read.
    public var core: CoordinatorCore { service.core }
    /// The coordinator's metrics (`/metrics`).
    public var metrics: CoordinatorMetrics { service.metrics }
    private let logger: Logger
    private let group: ServiceGroup
    private let boundPort: BoundPort

    /// Loads the topology and the state store and builds every part; nothing connects until ``run()``.
    /// An error names its cause (an invalid topology names the file and line).
    public init(configuration: CoordinatorConfiguration, logger: Logger) throws(CoordinatorError) {
        let client: MQTTClient
        let service: CoordinatorService
        let homeAssistant: HomeAssistantBridge?
        do {
            client = try MQTTClient(configuration: configuration.mqtt, logger: logger)
            service = try CoordinatorService(configuration: configuration, client: client, logger: logger)
            homeAssistant = try configuration.homeAssistant.map { homeAssistant in
                HomeAssistantBridge(
                    configuration: homeAssistant, topics: configuration.topics, source: service.core,
                    client: try MQTTClient(configuration: HomeAssistantBridge.connection(for: configuration.mqtt), logger: logger),
                    logger: logger)
            }
        } catch let error as CoordinatorError {
            throw error
        } catch {
            throw CoordinatorError("\(error)")
        }
        let boundPort = BoundPort()
        let gateways = GatewayDirectory(topics: configuration.topics, core: service.core, client: client, logger: logger)
        var services: [any Service] = [client, service, gateways]
        if let homeAssistant { services += [homeAssistant.client, homeAssistant] }
        if let (host, port) = configuration.http {
            if configuration.httpToken == nil, !["127.0.0.1", "::1", "localhost"].contains(host) {
                logger.warning(
                    "HTTP on \(host):\(port): the map and the API are open to the network without a token; see --http-token-file")
            }
            services.append(
                CoordinatorHTTPServer.make(
                    core: service.core, metrics: service.metrics, client: client, subscribed: { service.isSubscribed }, gateways: gateways,
                    host: host, port: port,
                    token: configuration.httpToken,
                    onServerRunning: { port in boundPort.set(port) }, logger: logger))
        } else {
            boundPort.set(nil)
        }
        self.configuration = configuration
        self.logger = logger
        self.client = client
        self.service = service
        self.homeAssistant = homeAssistant
        self.gateways = gateways
        self.boundPort = boundPort
        group = ServiceGroup(configuration: .init(services: services, logger: logger))
    }

    /// Runs every part until a graceful shutdown (of the group this application runs in, or
    /// ``triggerGracefulShutdown()``), then stops them in reverse order: the HTTP server first, the
    /// coordinator's client last (its `offline` status goes out before it disconnects).
    public func run() async throws {
        try await group.run()
    }

    /// Runs the application in a group of its own that shuts down gracefully on `gracefulShutdownSignals`.
    public func runService(gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint]) async throws {
        let outer = ServiceGroup(
            configuration: .init(services: [self], gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
        try await outer.run()
    }

    /// Shuts the application down gracefully, as a signal would (also before it runs: it then stops at once).
    public func triggerGracefulShutdown() async {
        await group.triggerGracefulShutdown()
    }

    /// The port the HTTP server listens on, once it does (the one the system chose for port 0);
    /// `nil` without ``CoordinatorConfiguration/http``.
    public func httpPort() async -> Int? {
        await boundPort.value()
    }
}

/// A value set once, that readers wait for.
private final class BoundPort: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Int?, Never>])
        case set(Int?)
    }

    private let state = Mutex(State.waiting([]))

    func set(_ port: Int?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int?, Never>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .set(port)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }

    func value() async -> Int? {
        await withCheckedContinuation { continuation in
            let port = state.withLock { state -> Int?? in
                switch state {
                case .set(let port): return .some(port)
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    return .none
                }
            }
            if let port { continuation.resume(returning: port) }
        }
    }
}
