#if os(Linux) && canImport(NIOPosix)
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL
    import NIOTLS
    import NIOWebSocket

    /// An ``MQTTByteStream`` over SwiftNIO, for Linux: TCP, TLS (NIOSSL, trusting the venue CA's
    /// certificates when given), and MQTT over WebSocket (subprotocol `mqtt`), with or without TLS.
    ///
    /// The same ``PhoneMQTTClient`` runs over it as over ``NetworkByteStream`` on a phone: this is
    /// the phone's code path on the machines CI runs on.
    public final class NIOByteStream: MQTTByteStream {
        /// The broker's URL (`mqtts://host:8883`), for messages.
        public var endpoint: String { lifecycle.endpoint }
        /// The bytes received, then the end (``MQTTByteStream/inbound``).
        public var inbound: AsyncStream<MQTTByteStreamEvent> { lifecycle.inbound }
        private let lifecycle: ByteStreamLifecycle
        private let target: MQTTEndpoint
        private let tlsContext: NIOSSLContext?
        /// The connection's channel, from the moment it exists.
        private let channel = Locked<(any Channel)?>(nil)

        /// A stream to `endpoint` (not yet open); with TLS, trusting `tls`'s certificates (the system's when `nil`).
        public init(endpoint: MQTTEndpoint, tls: MQTTTLSSettings = MQTTTLSSettings()) throws(PhoneMQTTError) {
            lifecycle = ByteStreamLifecycle(endpoint: endpoint.description)
            self.target = endpoint
            tlsContext = endpoint.transport.usesTLS ? try Self.makeTLSContext(tls) : nil
        }

        static func makeTLSContext(_ settings: MQTTTLSSettings) throws(PhoneMQTTError) -> NIOSSLContext {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.minimumTLSVersion = .tlsv12
            do {
                if let trusted = settings.trustedCertificates {
                    configuration.trustRoots = .certificates(try trusted.map { try NIOSSLCertificate(bytes: $0, format: .der) })
                }
            } catch {
                throw .invalidCertificate("the CA certificate cannot be loaded: \(error)")
            }
            if let identity = settings.clientIdentity {
                do {
                    let bundle = try NIOSSLPKCS12Bundle(buffer: identity.pkcs12, passphrase: Array(identity.password.utf8))
                    configuration.certificateChain = bundle.certificateChain.map { .certificate($0) }
                    configuration.privateKey = .privateKey(bundle.privateKey)
                } catch {
                    throw .invalidCertificate("the client identity (PKCS #12) cannot be read: \(error)")
                }
            }
            do {
                return try NIOSSLContext(configuration: configuration)
            } catch {
                throw .invalidCertificate("TLS settings refused: \(error)")
            }
        }

        /// Connects; `completion` once bytes can flow or with why not (``MQTTByteStream/open(_:)``).

        public func open(_ completion: @escaping @Sendable (Result<Void, PhoneMQTTError>) -> Void) {
            guard lifecycle.start(completion) else { return }
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(10))
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture { try self.configure(channel) }
                }
            bootstrap.connect(host: target.host, port: target.port).whenComplete { [self] result in
                switch result {
                case .success(let channel):
                    channel.closeFuture.whenComplete { [self] _ in
                        lifecycle.end(otherwise: .connectionClosed(endpoint: endpoint, reason: "the broker closed the connection"))
                    }
                    if lifecycle.isEnded || self.channel.withLock({ $0 == nil }) { channel.close(promise: nil) }
                case .failure(let error):
                    lifecycle.fail(mapError(error))
                    lifecycle.end(otherwise: mapError(error))
                }
            }
        }

        /// Adds the handlers: TLS, then either the bytes handler (ready at the TLS handshake or at
        /// once) or HTTP with a WebSocket upgrade (ready once upgraded).
        private func configure(_ channel: any Channel) throws {
            // Known before it is ready: `ready()` may run (and the client write) before `connect`'s future completes.
            self.channel.withLock { $0 = channel }
            let pipeline = channel.pipeline.syncOperations
            if let tlsContext {
                // SNI takes a host name, never an address: for an address NIOSSL checks the certificate against the peer's IP.
                let isAddress = (try? SocketAddress(ipAddress: target.host, port: 0)) != nil
                try pipeline.addHandler(NIOSSLClientHandler(context: tlsContext, serverHostname: isAddress ? nil : target.host))
            }
            guard target.transport.usesWebSocket else {
                try pipeline.addHandler(BytesHandler(stream: self, readyAfterHandshake: tlsContext != nil))
                return
            }
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: target.port == target.transport.defaultPort ? target.host : "\(target.host):\(target.port)")
            headers.add(name: "Sec-WebSocket-Protocol", value: "mqtt")
            headers.add(name: "Content-Length", value: "0")
            let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(maxFrameSize: 1 << 21) { [self] channel, response in
                channel.eventLoop.makeCompletedFuture {
                    // The broker must speak MQTT inside: mosquitto answers with the subprotocol it chose.
                    guard response.headers[canonicalForm: "Sec-WebSocket-Protocol"].contains(where: { $0.lowercased() == "mqtt" }) else {
                        return false
                    }
                    try channel.pipeline.syncOperations.addHandler(WebSocketFramesHandler(endpoint: endpoint))
                    try channel.pipeline.syncOperations.addHandler(BytesHandler(stream: self, readyAfterHandshake: false))
                    return true
                }
            }
            let upgrade = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
                upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers),
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) })
            let upgraded = try pipeline.configureUpgradableHTTPClientPipeline(configuration: .init(upgradeConfiguration: upgrade))
            upgraded.whenComplete { [self] result in
                switch result {
                case .success(true):
                    break  // BytesHandler reported ready when it was added
                case .success(false):
                    lifecycle.fail(
                        .webSocketRefused(
                            endpoint: endpoint, reason: "no '101 Switching Protocols' with subprotocol mqtt for GET \(target.path)"))
                    channel.close(promise: nil)
                case .failure(let error):
                    lifecycle.fail(
                        error is NIOHTTPClientUpgradeError ? .webSocketRefused(endpoint: endpoint, reason: "\(error)") : mapError(error))
                    channel.close(promise: nil)
                }
            }
        }

        /// Queues one packet's bytes behind the earlier ones (``MQTTByteStream/write(_:_:)``).

        public func write(_ bytes: [UInt8], _ completion: @escaping @Sendable (PhoneMQTTError?) -> Void) {
            guard !lifecycle.isEnded, let channel = channel.withLock({ $0 }) else {
                completion(.connectionClosed(endpoint: endpoint, reason: "the stream is not open"))
                return
            }
            channel.writeAndFlush(ByteBuffer(bytes: bytes)).whenComplete { [self] result in
                if case .failure(let error) = result { completion(mapError(error)) } else { completion(nil) }
            }
        }

        /// Closes at once (``MQTTByteStream/close()``).

        public func close() {
            lifecycle.close()
            // Taken, so that a channel still connecting is closed when its connect completes.
            if let channel = channel.withLock({ channel in
                defer { channel = nil }
                return channel
            }) {
                channel.close(promise: nil)  // its close future ends the stream
            } else {
                lifecycle.end(otherwise: .connectionClosed(endpoint: endpoint, reason: "closed by this client"))
            }
        }

        // MARK: Events from the pipeline

        /// Bytes can flow (TCP connected, TLS handshake done, WebSocket upgraded).
        fileprivate func ready() {
            lifecycle.ready()
        }

        fileprivate func received(_ buffer: ByteBuffer) {
            lifecycle.received(Array(buffer.readableBytesView))
        }

        /// Records the pipeline's first error; the channel closes next.
        fileprivate func fail(_ error: PhoneMQTTError) {
            lifecycle.fail(error)
        }

        fileprivate func mapError(_ error: any Error) -> PhoneMQTTError {
            Self.describe(error, endpoint: endpoint)
        }

        /// A NIO error as the step it failed: connecting, TLS, or the connection.
        static func describe(_ error: any Error, endpoint: String) -> PhoneMQTTError {
            switch error {
            case let error as NIOConnectionError:
                if let dns = error.dnsAError ?? error.dnsAAAAError {
                    return .connectionFailed(endpoint: endpoint, reason: "cannot resolve the host: \(dns)")
                }
                let reasons = error.connectionErrors.map { "\($0.target): \(describe($0.error, endpoint: endpoint).reason)" }
                return .connectionFailed(endpoint: endpoint, reason: reasons.isEmpty ? "\(error)" : reasons.joined(separator: "; "))
            case let error as IOError:
                return .connectionFailed(endpoint: endpoint, reason: String(cString: strerror(error.errnoCode)))
            case let error as ChannelError:
                if case .connectTimeout(let after) = error {
                    return .connectionFailed(endpoint: endpoint, reason: "no TCP connection within \(after)")
                }
                return .connectionClosed(endpoint: endpoint, reason: "\(error)")
            case let error as NIOSSLError:
                return .tlsFailed(endpoint: endpoint, reason: "\(error)")
            case let error as BoringSSLError:
                return .tlsFailed(endpoint: endpoint, reason: "\(error)")
            case let error as NIOSSLExtraError:
                return .tlsFailed(endpoint: endpoint, reason: "\(error)")
            case let error as PhoneMQTTError:
                return error
            default:
                return .connectionClosed(endpoint: endpoint, reason: "\(error)")
            }
        }
    }

    extension PhoneMQTTError {
        /// The reason part of a connection error, for composing several.
        fileprivate var reason: String {
            switch self {
            case .connectionFailed(_, let reason), .tlsFailed(_, let reason), .connectionClosed(_, let reason): reason
            default: description
            }
        }
    }

    /// The last handler: hands received bytes to the stream, says when the stream is ready, and
    /// records the pipeline's errors (a TLS handshake refused) before the channel closes.
    private final class BytesHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let stream: NIOByteStream
        private let readyAfterHandshake: Bool

        init(stream: NIOByteStream, readyAfterHandshake: Bool) {
            self.stream = stream
            self.readyAfterHandshake = readyAfterHandshake
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive && !readyAfterHandshake { stream.ready() }
        }

        func channelActive(context: ChannelHandlerContext) {
            if !readyAfterHandshake { stream.ready() }
            context.fireChannelActive()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if readyAfterHandshake, let event = event as? TLSUserEvent, case .handshakeCompleted = event { stream.ready() }
            context.fireUserInboundEventTriggered(event)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            stream.received(unwrapInboundIn(data))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            stream.fail(stream.mapError(error))
            context.close(promise: nil)
        }
    }

    /// MQTT over WebSocket: each outgoing packet one masked binary frame; incoming binary and
    /// continuation frames are bytes; pings are answered; a close frame closes.
    private final class WebSocketFramesHandler: ChannelDuplexHandler {
        typealias InboundIn = WebSocketFrame
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = ByteBuffer
        typealias OutboundOut = WebSocketFrame

        private let endpoint: String

        init(endpoint: String) {
            self.endpoint = endpoint
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .binary, .continuation:
                context.fireChannelRead(wrapInboundOut(frame.unmaskedData))
            case .ping:
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .connectionClose:
                let close = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: frame.unmaskedData)
                let written = context.eventLoop.makePromise(of: Void.self)
                context.writeAndFlush(wrapOutboundOut(close), promise: written)
                written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            case .pong:
                break
            default:
                context.fireErrorCaught(
                    PhoneMQTTError.protocolViolation(endpoint: endpoint, "a WebSocket \(frame.opcode) frame where MQTT sends binary ones"))
            }
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: unwrapOutboundIn(data))
            context.write(wrapOutboundOut(frame), promise: promise)
        }
    }
#endif
