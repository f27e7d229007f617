import Logging
import MQTT

/// The suspended phones' own MQTT connections, one per wake, as IOS.md has it (sockets do not
/// survive suspension; each wake reconnects): a phone's reports go out on the connection of its
/// wake, opened for its first report and closed once the app is suspended again.
///
/// Why not the simulation's one connection: on a NATS cluster a QoS 1 publish is stored in
/// JetStream on the publisher's read loop, and after `kill -9` of the node leading that stream
/// every later publish on the connection waited up to 4 s, then the node closed the connection
/// (docs/mqtt.md). Through one shared connection every phone's reports waited behind one stalled
/// publish, 8–9 s in `scripts/partition-check`: a fault no phone sees, since each has its own
/// socket.
///
/// With report copies each wake opens a second connection for them: on NATS a node reads a
/// connection's packets one after another, so a QoS 1 report stalled on a dead JetStream leader
/// held up every QoS 0 copy sent after it on the same connection (`scripts/partition-check
/// --kill-node msgs`: the next eight reports of one phone arrived together, 7.4 s late).
/// RegionSync's `PhoneMQTTTransport` does the same.
actor PhoneConnections {
    /// The simulation's connection settings; each phone's differ in client id and first broker.
    let base: MQTTConfiguration
    /// Whether each report also goes out at QoS 0, on a connection of its own (RegionSync's `Options.reportCopy`).
    let reportCopy: Bool
    /// How long a copy waits for its connection before it is dropped, as RegionSync's is.
    let copyConnectionWait: Duration
    let logger: Logger
    /// One wake's connections: the reports' and, with ``reportCopy``, the copies'.
    private struct Wake {
        let client: MQTTClient
        let copies: MQTTClient?
        let number: Int

        /// Messages not yet done on both connections.
        var outstanding: Int { client.outstandingMessageCount + (copies?.outstandingMessageCount ?? 0) }
    }
    /// The open connections by phone.
    private var open: [String: Wake] = [:]
    private var wakes = 0
    /// Connections being closed, by wake number.
    private var closing: [Int: Task<Void, Never>] = [:]

    /// Each phone's copies, one after another (a copy waits for its connection).
    private var sending: [String: Task<Void, Never>] = [:]

    init(base: MQTTConfiguration, reportCopy: Bool = false, copyConnectionWait: Duration = .seconds(2)) {
        self.base = base
        self.reportCopy = reportCopy
        self.copyConnectionWait = copyConnectionWait
        var logger = Logger(label: "beaconfleet.simulate.phone")
        logger.logLevel = .warning  // a connection per wake: say only what goes wrong
        self.logger = logger
    }

    /// Publishes `payload` on `topic` at QoS 1 on the connection of `phone`'s wake (the `index`-th
    /// phone starts at the `index`-th broker of the list, so the phones spread over a cluster's
    /// nodes), opening it first when the phone has none; with ``reportCopy``, also at QoS 0 on the
    /// wake's copy connection. `version`: the protocol the simulation's connection negotiated, so
    /// a phone does not ask a NATS node for MQTT 5 on every wake.
    func send(_ payload: [UInt8], topic: String, phone: String, index: Int, version: MQTTProtocolVersion?) {
        let wake: Wake
        if let existing = open[phone] {
            wake = existing
        } else {
            wakes += 1
            guard let client = connection(phone: phone, name: "\(wakes)", index: index, version: version) else { return }
            let copies = reportCopy ? connection(phone: phone, name: "\(wakes)c", index: index, version: version) : nil
            wake = Wake(client: client, copies: copies, number: wakes)
            open[phone] = wake
        }
        // Queued while the connection is being made; a full queue drops the report, as a phone whose wake ran out would.
        try? wake.client.enqueue(topic: topic, payload: payload, qos: .atLeastOnce)
        guard let copies = wake.copies else { return }
        // QoS 0 goes out only on a connection: as RegionSync does, wait for it (at most
        // `copyConnectionWait`); a phone's copies in the order it made them.
        let previous = sending[phone]
        let wait = copyConnectionWait
        sending[phone] = Task {
            await previous?.value
            let deadline = ContinuousClock.now + wait
            while !copies.connectionState.isConnected, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if copies.connectionState.isConnected { try? copies.enqueue(topic: topic, payload: payload, qos: .atMostOnce) }
        }
    }

    /// A new connection for `phone`, client id suffixed with `name`, connecting.
    private func connection(phone: String, name: String, index: Int, version: MQTTProtocolVersion?) -> MQTTClient? {
        var configuration = base
        configuration.clientID = String("\(base.clientID)-\(phone)-\(name)".prefix(128))
        let brokers = base.brokers
        let first = index % max(brokers.count, 1)
        configuration.url = brokers[first]
        configuration.failoverURLs = Array(brokers[(first + 1)...] + brokers[..<first])
        if let version { configuration.protocolVersion = version }
        configuration.maxQueued = 1_000
        do {
            let client = try MQTTClient(configuration: configuration, logger: logger)
            try client.connect()
            return client
        } catch {
            logger.warning("phone \(phone): cannot open a connection: \(error)")
            return nil
        }
    }

    /// Closes the connections of phones not in `awake`: each gets up to a second for its
    /// publishes to be acknowledged (a phone's last report and disconnect take about that at the
    /// end of its wake), then disconnects.
    func suspend(except awake: Set<String>) {
        for (phone, wake) in open where !awake.contains(phone) {
            open[phone] = nil
            let sent = sending.removeValue(forKey: phone)
            closing[wake.number] = Task {
                await sent?.value
                for _ in 0..<20 where wake.outstanding > 0 { try? await Task.sleep(for: .milliseconds(50)) }
                await wake.client.disconnect()
                await wake.copies?.disconnect()
                self.closed(wake.number)
            }
        }
    }

    private func closed(_ wake: Int) { closing[wake] = nil }

    /// Messages still unacknowledged on the open connections.
    var outstanding: Int { open.values.reduce(0) { $0 + $1.outstanding } }

    /// Closes every connection (as ``suspend(except:)`` with nobody awake) and waits for them.
    func closeAll() async {
        suspend(except: [])
        for task in Array(closing.values) { await task.value }
    }
}
