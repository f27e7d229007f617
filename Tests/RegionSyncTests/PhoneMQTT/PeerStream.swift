import RegionSyncMQTT

/// A byte stream whose far end is the test, playing a broker that misbehaves in ways mosquitto
/// never does (a retained message before its SUBACK, garbage, silence). It reads the packets the
/// client writes (each write is one packet) and writes what it likes.
final class PeerStream: MQTTByteStream {
    let endpoint = "peer://test"
    let inbound: AsyncStream<MQTTByteStreamEvent>
    private let toClient: AsyncStream<MQTTByteStreamEvent>.Continuation
    /// The client's packets, in order (one consumer).
    let packets: AsyncStream<MQTTPacket>
    private let writes: AsyncStream<MQTTPacket>.Continuation
    /// Whether `open` succeeds at once; otherwise it never completes (a SYN nobody answers).
    let opens: Bool

    init(opens: Bool = true) {
        self.opens = opens
        (inbound, toClient) = AsyncStream.makeStream(of: MQTTByteStreamEvent.self)
        (packets, writes) = AsyncStream.makeStream(of: MQTTPacket.self)
    }

    func open(_ completion: @escaping @Sendable (Result<Void, PhoneMQTTError>) -> Void) {
        if opens { completion(.success(())) }
    }

    func write(_ bytes: [UInt8], _ completion: @escaping @Sendable (PhoneMQTTError?) -> Void) {
        if let packet = try? MQTTPacket(decoding: bytes) { writes.yield(packet) }
        completion(nil)
    }

    func close() {
        toClient.yield(.closed(nil))
        toClient.finish()
        writes.finish()
    }

    // The broker's side.

    /// Sends `packet` to the client.
    func send(_ packet: MQTTPacket) throws {
        toClient.yield(.bytes(try packet.encoded()))
    }

    /// Sends raw bytes to the client.
    func send(bytes: [UInt8]) {
        toClient.yield(.bytes(bytes))
    }

    /// Ends the stream as a broker that went away would.
    func drop(_ reason: PhoneMQTTError) {
        toClient.yield(.closed(reason))
        toClient.finish()
    }
}
