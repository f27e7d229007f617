extension MQTTPacket {
    /// The packet's bytes: fixed header, remaining length, variable header and payload.
    ///
    /// Throws when a field cannot be written: a string over 65,535 bytes or holding U+0000, a topic
    /// with wildcards, a QoS 1 or 2 `PUBLISH` without a packet identifier, a packet over 256 MiB.
    public func encoded() throws(MQTTPacketError) -> [UInt8] {
        var body = PacketWriter(packet: name)
        let first: UInt8
        switch self {
        case .connect(let connect):
            first = PacketType.connect.rawValue << 4
            try connect.write(into: &body)
        case .connack(let connack):
            first = PacketType.connack.rawValue << 4
            body.byte(connack.sessionPresent ? 1 : 0)
            body.byte(connack.returnCode.rawValue)
        case .publish(let publish):
            first =
                PacketType.publish.rawValue << 4 | (publish.duplicate ? 0x08 : 0) | publish.qos.rawValue << 1 | (publish.retain ? 0x01 : 0)
            try publish.write(into: &body)
        case .puback(let identifier):
            guard identifier != 0 else { throw .invalidPacketIdentifier(packet: name) }
            first = PacketType.puback.rawValue << 4
            body.uint16(identifier)
        case .subscribe(let subscribe):
            first = PacketType.subscribe.rawValue << 4 | 0x02
            guard subscribe.packetIdentifier != 0 else { throw .invalidPacketIdentifier(packet: name) }
            guard !subscribe.subscriptions.isEmpty else { throw .empty(packet: name) }
            body.uint16(subscribe.packetIdentifier)
            for subscription in subscribe.subscriptions {
                guard MQTTTopic.isValidFilter(subscription.filter) else { throw .invalidTopicFilter(subscription.filter) }
                try body.string(subscription.filter, "topic filter")
                body.byte(subscription.qos.rawValue)
            }
        case .suback(let suback):
            first = PacketType.suback.rawValue << 4
            guard suback.packetIdentifier != 0 else { throw .invalidPacketIdentifier(packet: name) }
            guard !suback.results.isEmpty else { throw .empty(packet: name) }
            body.uint16(suback.packetIdentifier)
            for result in suback.results {
                switch result {
                case .granted(let qos): body.byte(qos.rawValue)
                case .failure: body.byte(0x80)
                }
            }
        case .pingreq:
            first = PacketType.pingreq.rawValue << 4
        case .pingresp:
            first = PacketType.pingresp.rawValue << 4
        case .disconnect:
            first = PacketType.disconnect.rawValue << 4
        }
        guard body.bytes.count <= RemainingLength.maximum else {
            throw .packetTooLarge(length: body.bytes.count, limit: RemainingLength.maximum)
        }
        var bytes = [first]
        bytes.reserveCapacity(body.bytes.count + 5)
        RemainingLength.encode(body.bytes.count, into: &bytes)
        bytes += body.bytes
        return bytes
    }

    /// Decodes one whole packet: `header` is its first byte, `body` the `remaining length` bytes after
    /// the length. Every field is checked against the specification; nothing traps on bad bytes.
    public init(header: UInt8, body: ArraySlice<UInt8>) throws(MQTTPacketError) {
        let flags = header & 0x0F
        guard let type = PacketType(rawValue: header >> 4) else { throw .reservedPacketType(header >> 4) }
        var reader = PacketReader(packet: "\(type)".uppercased(), bytes: body)
        /// Packets whose flags MQTT fixes.
        func expectFlags(_ expected: UInt8) throws(MQTTPacketError) {
            guard flags == expected else { throw .invalidFlags(packet: reader.packet, flags: flags) }
        }
        switch type {
        case .connect:
            try expectFlags(0)
            self = .connect(try Connect(reading: &reader))
        case .connack:
            try expectFlags(0)
            let acknowledge = try reader.byte("acknowledge flags")
            guard acknowledge & 0xFE == 0 else { throw .invalidAcknowledgeFlags(acknowledge) }
            let code = try reader.byte("return code")
            guard let returnCode = ConnectReturnCode(rawValue: code) else { throw .invalidReturnCode(packet: reader.packet, value: code) }
            try reader.expectEnd()
            self = .connack(ConnAck(sessionPresent: acknowledge == 1, returnCode: returnCode))
        case .publish:
            guard let qos = QoS(rawValue: (flags >> 1) & 0x03) else { throw .invalidQoS(packet: reader.packet, value: (flags >> 1) & 0x03) }
            let duplicate = flags & 0x08 != 0
            guard !(duplicate && qos == .atMostOnce) else { throw .duplicateAtQoS0 }
            let topic = try reader.string("topic")
            guard MQTTTopic.isValidName(topic) else { throw .invalidTopic(topic) }
            let identifier = qos == .atMostOnce ? nil : try reader.packetIdentifier()
            self = .publish(
                Publish(
                    topic: topic, payload: reader.rest(), qos: qos, retain: flags & 0x01 != 0, duplicate: duplicate,
                    packetIdentifier: identifier))
        case .puback:
            try expectFlags(0)
            let identifier = try reader.packetIdentifier()
            try reader.expectEnd()
            self = .puback(packetIdentifier: identifier)
        case .subscribe:
            try expectFlags(0x02)
            let identifier = try reader.packetIdentifier()
            var subscriptions: [Subscription] = []
            while !reader.isAtEnd {
                let filter = try reader.string("topic filter")
                guard MQTTTopic.isValidFilter(filter) else { throw .invalidTopicFilter(filter) }
                let requested = try reader.byte("requested QoS")
                guard let qos = QoS(rawValue: requested) else { throw .invalidQoS(packet: reader.packet, value: requested) }
                subscriptions.append(Subscription(filter: filter, qos: qos))
            }
            guard !subscriptions.isEmpty else { throw .empty(packet: reader.packet) }
            self = .subscribe(Subscribe(packetIdentifier: identifier, subscriptions: subscriptions))
        case .suback:
            try expectFlags(0)
            let identifier = try reader.packetIdentifier()
            var results: [SubscribeResult] = []
            for code in reader.rest() {
                if code == 0x80 {
                    results.append(.failure)
                } else if let qos = QoS(rawValue: code) {
                    results.append(.granted(qos))
                } else {
                    throw .invalidReturnCode(packet: reader.packet, value: code)
                }
            }
            guard !results.isEmpty else { throw .empty(packet: reader.packet) }
            self = .suback(SubAck(packetIdentifier: identifier, results: results))
        case .pingreq, .pingresp, .disconnect:
            try expectFlags(0)
            try reader.expectEnd()
            self = type == .pingreq ? .pingreq : type == .pingresp ? .pingresp : .disconnect
        case .pubrec, .pubrel, .pubcomp, .unsubscribe, .unsuback:
            throw .unsupportedPacketType(type.rawValue)
        }
    }

    /// Decodes `bytes` holding exactly one whole packet (fixed header included).
    public init(decoding bytes: [UInt8]) throws(MQTTPacketError) {
        guard let first = bytes.first else { throw .truncated(packet: "packet", field: "fixed header") }
        guard let (length, count) = try RemainingLength.decode(bytes.dropFirst()) else {
            throw .truncated(packet: "packet", field: "remaining length")
        }
        let start = 1 + count
        guard bytes.count - start >= length else { throw .truncated(packet: "packet", field: "body (\(length) bytes announced)") }
        guard bytes.count - start == length else { throw .trailingBytes(packet: "packet", count: bytes.count - start - length) }
        try self.init(header: first, body: bytes[start...])
    }
}

extension MQTTPacket.Connect {
    /// The flags byte: user name, password, will retain, will QoS, will, clean session.
    var flags: UInt8 {
        var flags: UInt8 = 0
        if username != nil { flags |= 0x80 }
        if password != nil { flags |= 0x40 }
        if let will {
            flags |= 0x04 | will.qos.rawValue << 3
            if will.retain { flags |= 0x20 }
        }
        if cleanSession { flags |= 0x02 }
        return flags
    }

    func write(into body: inout PacketWriter) throws(MQTTPacketError) {
        guard password == nil || username != nil else { throw .invalidConnectFlags(flags) }
        try body.string("MQTT", "protocol name")
        body.byte(4)
        body.byte(flags)
        body.uint16(keepAlive)
        try body.string(clientID, "client identifier")
        if let will {
            guard MQTTTopic.isValidName(will.topic) else { throw .invalidTopic(will.topic) }
            try body.string(will.topic, "will topic")
            try body.binary(will.payload, "will message")
        }
        if let username { try body.string(username, "user name") }
        if let password { try body.binary(password, "password") }
    }

    init(reading reader: inout PacketReader) throws(MQTTPacketError) {
        let name = try reader.string("protocol name")
        let level = try reader.byte("protocol level")
        guard name == "MQTT", level == 4 else { throw .unsupportedProtocol(name: name, level: level) }
        let flags = try reader.byte("connect flags")
        let hasWill = flags & 0x04 != 0
        let willQoS = (flags >> 3) & 0x03
        let willRetain = flags & 0x20 != 0
        let hasUsername = flags & 0x80 != 0
        let hasPassword = flags & 0x40 != 0
        guard flags & 0x01 == 0, willQoS != 3, hasWill || (willQoS == 0 && !willRetain), hasUsername || !hasPassword else {
            throw .invalidConnectFlags(flags)
        }
        keepAlive = try reader.uint16("keep alive")
        cleanSession = flags & 0x02 != 0
        clientID = try reader.string("client identifier")
        if hasWill {
            let topic = try reader.string("will topic")
            guard MQTTTopic.isValidName(topic) else { throw .invalidTopic(topic) }
            will = MQTTPacket.Will(
                topic: topic, payload: try reader.binary("will message"), qos: MQTTPacket.QoS(rawValue: willQoS) ?? .atMostOnce,
                retain: willRetain)
        } else {
            will = nil
        }
        username = hasUsername ? try reader.string("user name") : nil
        password = hasPassword ? try reader.binary("password") : nil
        try reader.expectEnd()
    }
}

extension MQTTPacket.Publish {
    func write(into body: inout PacketWriter) throws(MQTTPacketError) {
        guard MQTTTopic.isValidName(topic) else { throw .invalidTopic(topic) }
        guard !(duplicate && qos == .atMostOnce) else { throw .duplicateAtQoS0 }
        try body.string(topic, "topic")
        switch (qos, packetIdentifier) {
        case (.atMostOnce, nil): break
        case (.atMostOnce, .some): throw .invalidPacketIdentifier(packet: "PUBLISH")  // QoS 0 carries none
        case (_, let identifier?) where identifier != 0: body.uint16(identifier)
        default: throw .invalidPacketIdentifier(packet: "PUBLISH")
        }
        body.raw(payload)
    }
}
