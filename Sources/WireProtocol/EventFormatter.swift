public import Foundation

/// Turns the coordinator's messages into one readable line each: what `beaconfleet watch` and
/// `beaconfleet demo` print.
///
/// ```
/// 09:00:01.123  phone-7      regions v12 moved     +r5 +r6 -r1 -r2  (20 regions)  at 12.3,4.5 L0 ±2.1m
/// 09:00:01.130  phone-7      enter  r5             report  at 12.3,4.5 L0
/// 09:00:02.000  coordinator  online museum@3f2a91c0  42 clients
/// ```
public struct EventFormatter: Sendable {
    public let topics: Topics
    /// Only lines about this client (others are skipped), when set.
    public var client: String?

    public init(topics: Topics, client: String? = nil) {
        self.topics = topics
        self.client = client
    }

    /// The subscription filters that deliver what this formatter shows.
    public var filters: [String] {
        if let client, let id = Identifier(validating: client) {
            return [topics.clientRegions(id), topics.clientEvents(id), topics.coordinatorStatus]
        }
        return [topics.allClientRegions, topics.allClientEvents, topics.coordinatorStatus, topics.allGatewayStatus]
    }

    /// One line for the message, `nil` when it is not shown (another client's, or not a display topic).
    /// A payload that does not decode still gets a line saying so, naming the topic.
    public func line(topic: String, payload: [UInt8], receivedAt: Date = Date()) -> String? {
        guard let route = try? topics.route(topic) else { return nil }
        switch route {
        case .clientRegions(let id):
            guard wants(id) else { return nil }
            if payload.isEmpty { return row(receivedAt, id.rawValue, "regions cleared (client expired)") }
            guard let message = decode(RegionsMessage.self, payload, topic) else { return invalid(receivedAt, id.rawValue, topic) }
            var text = "regions v\(message.version) \(message.reason.padding(9))"
            let diff = message.remove.map { "-\($0)" } + message.add.map { "+\($0.id)" }
            text += " " + (diff.isEmpty ? "(no change)" : diff.joined(separator: " "))
            text += "  (\(message.regions.count)/\(message.budget) regions)"
            if let position = message.position { text += "  at " + EventFormatter.describe(position) }
            return row(message.time ?? receivedAt, id.rawValue, text)
        case .clientEvents(let id):
            guard wants(id) else { return nil }
            guard let event = decode(ClientEvent.self, payload, topic) else { return invalid(receivedAt, id.rawValue, topic) }
            var text = event.type.rawValue.padding(6)
            if let region = event.region { text += " \(region)" }
            if let room = event.room { text += " room \(room)" }
            if let level = event.level { text += " level \(level)" }
            if let confidence = event.confidence { text += String(format: " (%.0f%%)", confidence * 100) }
            if let evidence = event.evidence { text += "  (\(evidence))" }
            if let position = event.position { text += "  at " + EventFormatter.describe(position) }
            return row(event.time, id.rawValue, text)
        case .coordinatorStatus:
            if payload.isEmpty { return nil }
            guard let status = decode(CoordinatorStatus.self, payload, topic) else { return invalid(receivedAt, "coordinator", topic) }
            var text = status.state.rawValue
            if let topology = status.topology { text += " \(topology.name)@\(topology.revision.prefix(8))" }
            if let clients = status.clients { text += "  \(clients) clients" }
            if let error = status.error { text += "  topology error: \(error.prefix(200))" }
            return row(status.time ?? receivedAt, "coordinator", text)
        case .gatewayStatus(let id):
            guard client == nil, !payload.isEmpty else { return nil }
            guard let status = decode(GatewayStatus.self, payload, topic) else { return invalid(receivedAt, id.rawValue, topic) }
            var text = "gateway \(status.state.rawValue)"
            if let adapter = status.adapter { text += " (\(adapter))" }
            return row(status.time ?? receivedAt, id.rawValue, text)
        case .gatewayConfig(let id):
            guard client == nil, !payload.isEmpty else { return nil }
            guard let configuration = decode(GatewayConfiguration.self, payload, topic) else {
                return invalid(receivedAt, id.rawValue, topic)
            }
            return row(configuration.time ?? receivedAt, id.rawValue, "gateway configuration \(configuration.revision)")
        case .sightings, .clientReport, .coordinatorMember:
            return nil
        }
    }

    private func wants(_ id: Identifier) -> Bool { client == nil || client == id.rawValue }

    private func decode<T: VersionedPayload>(_ type: T.Type, _ payload: [UInt8], _ topic: String) -> T? {
        try? WireCoding.decode(type, from: payload, topic: topic)
    }

    private func invalid(_ time: Date, _ who: String, _ topic: String) -> String {
        row(time, who, "(payload on \(topic) does not decode)")
    }

    private func row(_ time: Date, _ who: String, _ text: String) -> String {
        let stamp = RFC3339.string(from: time)  // YYYY-MM-DDTHH:MM:SS.mmmZ
        let clock = stamp.dropFirst(11).dropLast()
        return "\(clock)  \(who.padding(12))  \(text)"
    }

    /// `12.3,4.5 L0 ±2.1m`, then ` in ROOM` when the venue has rooms.
    public static func describe(_ position: Position) -> String {
        func metres(_ value: Double) -> String { String(format: "%.1f", value) }
        var text = "\(metres(position.x)),\(metres(position.y)) \(position.level)"
        if let confidence = position.confidence { text += " ±\(metres(confidence))m" }
        if let room = position.room { text += " in \(room)" }
        return text
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
