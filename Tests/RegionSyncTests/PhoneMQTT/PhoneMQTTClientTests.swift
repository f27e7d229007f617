import RegionSyncMQTT
import TestSupport
import Testing

/// `PhoneMQTTClient` against a peer that misbehaves where mosquitto never does: the order of
/// packets, refusals of every kind, garbage, silence. Everything mosquitto can show is tested
/// against mosquitto (`PhoneMQTTBrokerTests`).
@Suite("PhoneMQTTClient's protocol handling", .timeLimit(.minutes(1)))
struct PhoneMQTTClientTests {
    /// A client over a fresh peer stream, connected (the peer answered its CONNECT).
    func connected(keepAlive: Duration = .zero) async throws -> (PhoneMQTTClient, PeerStream, AsyncStream<MQTTPacket>.Iterator) {
        let peer = PeerStream()
        let client = PhoneMQTTClient(
            stream: peer, options: .init(clientID: "phone-1", username: "phone-1", password: "pw", keepAlive: keepAlive))
        var packets = peer.packets.makeAsyncIterator()
        let connecting = Task { try await client.connect(deadline: .now + .seconds(10)) }
        let connect = await packets.next()
        #expect(
            connect
                == .connect(
                    .init(
                        clientID: "phone-1", keepAlive: UInt16(keepAlive.components.seconds), username: "phone-1",
                        password: Array("pw".utf8))))
        try peer.send(.connack(.init(returnCode: .accepted)))
        #expect(try await connecting.value == false)
        return (client, peer, packets)
    }

    @Test("a retained message that arrives before its SUBACK is delivered first, and acknowledged")
    func retainedBeforeSubAck() async throws {
        let (client, peer, first) = try await connected()
        var packets = first
        let messages = client.messages
        let granted = Task { try await client.subscribe("beaconfleet/v1/clients/phone-1/regions", deadline: .now + .seconds(10)) }
        guard case .subscribe(let subscribe) = await packets.next() else {
            Issue.record("no SUBSCRIBE")
            return
        }
        #expect(subscribe.subscriptions == [.init(filter: "beaconfleet/v1/clients/phone-1/regions", qos: .atLeastOnce)])
        let retained = MQTTPacket.Publish(
            topic: "beaconfleet/v1/clients/phone-1/regions", payload: Array(#"{"v":1,"version":3}"#.utf8), qos: .atLeastOnce, retain: true,
            packetIdentifier: 77)
        try peer.send(.publish(retained))  // as NATS may: the retained message first
        try peer.send(.suback(.init(packetIdentifier: subscribe.packetIdentifier, results: [.granted(.atLeastOnce)])))
        #expect(try await granted.value == .atLeastOnce)
        var iterator = messages.makeAsyncIterator()
        #expect(await iterator.next() == retained)
        #expect(await packets.next() == .puback(packetIdentifier: 77))
        await client.disconnect()
        #expect(await packets.next() == .disconnect)
    }

    @Test(
        "each CONNACK refusal is its own typed error, and the connection is closed",
        arguments: MQTTPacket.ConnectReturnCode.allCases.dropFirst())
    func refusals(_ code: MQTTPacket.ConnectReturnCode) async throws {
        let peer = PeerStream()
        let client = PhoneMQTTClient(stream: peer, options: .init(clientID: "phone-1"))
        var packets = peer.packets.makeAsyncIterator()
        let connecting = Task { try await client.connect(deadline: .now + .seconds(10)) }
        _ = await packets.next()
        try peer.send(.connack(.init(returnCode: code)))
        await #expect(throws: PhoneMQTTError.connectionRefused(endpoint: "peer://test", code)) { try await connecting.value }
        #expect(await client.isConnected == false)
        await #expect(throws: PhoneMQTTError.notConnected(step: "publish to t", cause: .connectionRefused(endpoint: "peer://test", code))) {
            try await client.publish([], to: "t", deadline: .now + .seconds(1))
        }
        #expect(
            PhoneMQTTError.connectionRefused(endpoint: "peer://test", code).description.contains("(CONNACK return code \(code.rawValue))"))
    }

    @Test("a broker that never answers CONNECT: timed out at the deadline, not later")
    func silentBroker() async throws {
        let peer = PeerStream()
        let client = PhoneMQTTClient(stream: peer, options: .init(clientID: "phone-1"))
        let start = ContinuousClock.now
        let error = await #expect(throws: PhoneMQTTError.self) { try await client.connect(deadline: start + .milliseconds(300)) }
        guard case .timedOut(let step, let after) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(step == "CONNACK from peer://test" && after <= .milliseconds(300) && after > .milliseconds(250))
        #expect(start.duration(to: .now) < .seconds(20), "ended, not hung (the full suite holds both cores for up to 8 s at a time)")
    }

    @Test("a connection that never opens: timed out at the deadline")
    func neverOpens() async throws {
        let client = PhoneMQTTClient(stream: PeerStream(opens: false), options: .init(clientID: "phone-1"))
        let start = ContinuousClock.now
        let error = await #expect(throws: PhoneMQTTError.self) { try await client.connect(deadline: start + .milliseconds(200)) }
        guard case .timedOut(let step, _) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(step == "the connection to peer://test")
        #expect(start.duration(to: .now) < .seconds(20), "ended, not hung (the full suite holds both cores for up to 8 s at a time)")
    }

    @Test("garbage from the broker ends the connection with the malformation, failing what waits")
    func garbage() async throws {
        let (client, peer, first) = try await connected()
        var packets = first
        let subscribing = Task { try await client.subscribe("a", deadline: .now + .seconds(30)) }
        _ = await packets.next()
        peer.send(bytes: [0x90, 3, 0, 1, 0x07])  // a SUBACK with return code 7
        await #expect(throws: PhoneMQTTError.malformedPacket(endpoint: "peer://test", .invalidReturnCode(packet: "SUBACK", value: 7))) {
            try await subscribing.value
        }
        #expect(await client.closeReason == .malformedPacket(endpoint: "peer://test", .invalidReturnCode(packet: "SUBACK", value: 7)))
    }

    @Test("a refused subscription (SUBACK 0x80) is its own error; the connection stays")
    func subscriptionRefused() async throws {
        let (client, peer, first) = try await connected()
        var packets = first
        let subscribing = Task { try await client.subscribe("beaconfleet/v1/clients/other/regions", deadline: .now + .seconds(10)) }
        guard case .subscribe(let subscribe) = await packets.next() else {
            Issue.record("no SUBSCRIBE")
            return
        }
        try peer.send(.suback(.init(packetIdentifier: subscribe.packetIdentifier, results: [.failure])))
        await #expect(throws: PhoneMQTTError.subscriptionRefused(endpoint: "peer://test", filter: "beaconfleet/v1/clients/other/regions")) {
            try await subscribing.value
        }
        #expect(await client.isConnected)
    }

    @Test("QoS 1 publish returns at its PUBACK; a cancelled wait ends at once")
    func publishAndCancel() async throws {
        let (client, peer, first) = try await connected()
        var packets = first
        let publishing = Task {
            try await client.publish([1, 2, 3], to: "beaconfleet/v1/clients/phone-1/report", deadline: .now + .seconds(10))
        }
        guard case .publish(let publish) = await packets.next(), let identifier = publish.packetIdentifier else {
            Issue.record("no QoS 1 PUBLISH")
            return
        }
        #expect(publish.qos == .atLeastOnce && publish.payload == [1, 2, 3] && !publish.retain)
        try peer.send(.puback(packetIdentifier: identifier))
        try await publishing.value

        let waiting = Task { try await client.publish([4], to: "t", deadline: .now + .seconds(30)) }
        _ = await packets.next()
        let start = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: PhoneMQTTError.cancelled(step: "PUBACK for t from peer://test")) { try await waiting.value }
        #expect(start.duration(to: .now) < .seconds(1))
        // A PUBACK that comes after its publish was given up is harmless.
        try peer.send(.puback(packetIdentifier: identifier &+ 1))
        try await client.publish([5], to: "t", qos: .atMostOnce, deadline: .now + .seconds(5))
        #expect(await client.isConnected)
    }

    @Test("the broker going away fails the waits at once with the reason, and later steps say why they cannot run")
    func brokerGone() async throws {
        let (client, peer, first) = try await connected()
        var packets = first
        let messages = client.messages
        let publishing = Task { try await client.publish([1], to: "t", deadline: .now + .seconds(30)) }
        _ = await packets.next()
        let gone = PhoneMQTTError.connectionClosed(endpoint: "peer://test", reason: "the broker closed the connection")
        peer.drop(gone)
        await #expect(throws: gone) { try await publishing.value }
        await #expect(throws: PhoneMQTTError.notConnected(step: "subscribe to a", cause: gone)) {
            try await client.subscribe("a", deadline: .now + .seconds(1))
        }
        for await _ in messages { Issue.record("no message was sent") }  // ends with the connection
    }

    @Test("QoS 2 is refused before anything is sent; a QoS 2 delivery is a protocol violation")
    func qos2() async throws {
        let (client, peer, _) = try await connected()
        await #expect(throws: PhoneMQTTError.self) {
            try await client.publish([], to: "t", qos: .exactlyOnce, deadline: .now + .seconds(1))
        }
        await #expect(throws: PhoneMQTTError.self) { try await client.subscribe("t", qos: .exactlyOnce, deadline: .now + .seconds(1)) }
        await #expect(throws: PhoneMQTTError.self) { try await client.publish([], to: "a/+", deadline: .now + .seconds(1)) }
        try peer.send(.publish(.init(topic: "t", payload: [], qos: .exactlyOnce, packetIdentifier: 1)))
        try await withTimeout(.seconds(5), "the violation to end the connection") {
            while await client.isConnected { try await Task.sleep(for: .milliseconds(5)) }
        }
        guard case .protocolViolation = await client.closeReason else {
            Issue.record("closed for \(String(describing: await client.closeReason))")
            return
        }
    }

    @Test("keep-alive: a PINGREQ after three quarters of a quiet keep-alive period; no PINGRESP ends the connection")
    func keepAlive() async throws {
        let (client, peer, first) = try await connected(keepAlive: .seconds(1))
        var packets = first
        let start = ContinuousClock.now
        #expect(await packets.next() == .pingreq)
        #expect(start.duration(to: .now) >= .milliseconds(700))
        try peer.send(.pingresp)
        #expect(await packets.next() == .pingreq, "and again after the next quiet 0.75 s")
        // No answer this time: the connection ends within another keep-alive period.
        try await withTimeout(.seconds(5), "the unanswered ping to end the connection") {
            while await client.isConnected { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(await client.closeReason == .connectionClosed(endpoint: "peer://test", reason: "no PINGRESP within 1.0 s"))
        #expect(start.duration(to: .now) < .seconds(20))
    }

    @Test("ping waits for the PINGRESP")
    func ping() async throws {
        let (client, peer, first) = try await connected()
        var packets = first
        let pinging = Task { try await client.ping(deadline: .now + .seconds(10)) }
        #expect(await packets.next() == .pingreq)
        try peer.send(.pingresp)
        try await pinging.value
    }
}
