#if canImport(Network)
    import Foundation
    import Network
    import Security

    /// An ``MQTTByteStream`` over `Network.framework`, for iOS and macOS: TCP, TLS trusting the
    /// venue's own CA (its certificates as the only anchors, checked with `SecTrust` in
    /// `sec_protocol_options_set_verify_block`) with an optional client identity, and MQTT over
    /// WebSocket (`NWProtocolWebSocket`, subprotocol `mqtt`) for networks that block port 8883.
    ///
    /// A connection that cannot be made now (`NWConnection`'s `waiting` state: refused, no route,
    /// no network) fails at once instead of waiting for a better path: a wake has seconds.
    public final class NetworkByteStream: MQTTByteStream {
        /// The broker's URL (`mqtts://host:8883`), for messages.
        public var endpoint: String { lifecycle.endpoint }
        /// The bytes received, then the end (``MQTTByteStream/inbound``).
        public var inbound: AsyncStream<MQTTByteStreamEvent> { lifecycle.inbound }
        private let lifecycle: ByteStreamLifecycle
        private let target: MQTTEndpoint
        private let queue = DispatchQueue(label: "RegionSyncMQTT.NetworkByteStream")
        private let connection: NWConnection
        /// Why the venue CA did not accept the broker's certificate, for the TLS error.
        private let trustFailure: Locked<String?>

        /// A stream to `endpoint` (not yet open); with TLS, trusting `tls`'s certificates only (the
        /// system's trust store when `nil`) and showing its client identity. Throws for an identity
        /// that cannot be imported.
        public init(endpoint: MQTTEndpoint, tls: MQTTTLSSettings = MQTTTLSSettings()) throws(PhoneMQTTError) {
            lifecycle = ByteStreamLifecycle(endpoint: endpoint.description)
            self.target = endpoint
            let trustFailure = Locked<String?>(nil)
            self.trustFailure = trustFailure
            let parameters = try Self.parameters(endpoint: endpoint, tls: tls, trustFailure: trustFailure, queue: queue)
            connection = NWConnection(to: try Self.networkEndpoint(endpoint), using: parameters)
        }

        private static func networkEndpoint(_ endpoint: MQTTEndpoint) throws(PhoneMQTTError) -> NWEndpoint {
            if endpoint.transport.usesWebSocket {
                let host = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
                let scheme = endpoint.transport == .secureWebSocket ? "wss" : "ws"
                guard let url = URL(string: "\(scheme)://\(host):\(endpoint.port)\(endpoint.path)") else {
                    throw .invalidURL(endpoint.description, reason: "not a WebSocket URL")
                }
                return .url(url)
            }
            guard let port = NWEndpoint.Port(rawValue: UInt16(endpoint.port)) else {
                throw .invalidURL(endpoint.description, reason: "port \(endpoint.port) out of range")
            }
            return .hostPort(host: NWEndpoint.Host(endpoint.host), port: port)
        }

        private static func parameters(
            endpoint: MQTTEndpoint, tls: MQTTTLSSettings, trustFailure: Locked<String?>, queue: DispatchQueue
        ) throws(PhoneMQTTError) -> NWParameters {
            let tcp = NWProtocolTCP.Options()
            tcp.noDelay = true
            var tlsOptions: NWProtocolTLS.Options?
            if endpoint.transport.usesTLS {
                let options = NWProtocolTLS.Options()
                let security = options.securityProtocolOptions
                sec_protocol_options_set_min_tls_protocol_version(security, .TLSv12)
                if let anchors = tls.trustedCertificates {
                    let host = endpoint.host
                    sec_protocol_options_set_verify_block(
                        security,
                        { _, trust, complete in
                            let failure = Self.evaluate(sec_trust_copy_ref(trust).takeRetainedValue(), anchors: anchors, host: host)
                            trustFailure.withLock { $0 = failure }
                            complete(failure == nil)
                        }, queue)
                }
                if let identity = tls.clientIdentity {
                    guard let local = sec_identity_create(try importIdentity(identity)) else {
                        throw .invalidCertificate("the client identity cannot be used for TLS")
                    }
                    sec_protocol_options_set_local_identity(security, local)
                }
                tlsOptions = options
            }
            let parameters = NWParameters(tls: tlsOptions, tcp: tcp)
            if endpoint.transport.usesWebSocket {
                let webSocket = NWProtocolWebSocket.Options()
                webSocket.autoReplyPing = true
                webSocket.maximumMessageSize = 1 << 21
                webSocket.setSubprotocols(["mqtt"])
                parameters.defaultProtocolStack.applicationProtocols.insert(webSocket, at: 0)
            }
            return parameters
        }

        /// Checks the broker's chain against the venue's certificates only, and its name against
        /// `host`: `nil` when trusted, otherwise why not.
        private static func evaluate(_ trust: SecTrust, anchors: [[UInt8]], host: String) -> String? {
            let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
            guard certificates.count == anchors.count else { return "the venue CA certificate cannot be read" }
            SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
            SecTrustSetAnchorCertificates(trust, certificates as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, true)
            var error: CFError?
            guard SecTrustEvaluateWithError(trust, &error) else {
                return error.map { CFErrorCopyDescription($0) as String } ?? "the broker's certificate is not trusted"
            }
            return nil
        }

        private static func importIdentity(_ identity: PhoneMQTTClientIdentity) throws(PhoneMQTTError) -> SecIdentity {
            var items: CFArray?
            let options = [kSecImportExportPassphrase as String: identity.password] as CFDictionary
            let status = SecPKCS12Import(Data(identity.pkcs12) as CFData, options, &items)
            guard status == errSecSuccess else {
                throw .invalidCertificate("the client identity (PKCS #12) cannot be imported: \(message(status))")
            }
            guard let entries = items as? [[String: Any]], let entry = entries.first, let found = entry[kSecImportItemIdentity as String],
                CFGetTypeID(found as CFTypeRef) == SecIdentityGetTypeID()
            else {
                throw .invalidCertificate("the PKCS #12 bundle holds no identity (certificate and key)")
            }
            return found as! SecIdentity  // a CF type: the type id above is the check
        }

        private static func message(_ status: OSStatus) -> String {
            (SecCopyErrorMessageString(status, nil) as String?).map { "\($0) (OSStatus \(status))" } ?? "OSStatus \(status)"
        }

        // MARK: MQTTByteStream

        /// Connects; `completion` once bytes can flow or with why not (``MQTTByteStream/open(_:)``).

        public func open(_ completion: @escaping @Sendable (Result<Void, PhoneMQTTError>) -> Void) {
            guard lifecycle.start(completion) else { return }
            connection.stateUpdateHandler = { [weak self] state in self?.changed(state) }
            connection.start(queue: queue)
        }

        /// Queues one packet's bytes behind the earlier ones (``MQTTByteStream/write(_:_:)``).

        public func write(_ bytes: [UInt8], _ completion: @escaping @Sendable (PhoneMQTTError?) -> Void) {
            let context: NWConnection.ContentContext
            if target.transport.usesWebSocket {
                context = NWConnection.ContentContext(identifier: "mqtt", metadata: [NWProtocolWebSocket.Metadata(opcode: .binary)])
            } else {
                context = .defaultMessage
            }
            connection.send(
                content: Data(bytes), contentContext: context, isComplete: true,
                completion: .contentProcessed { [weak self] error in
                    guard let error else { return completion(nil) }
                    completion(self?.describe(error) ?? .connectionClosed(endpoint: "", reason: "\(error)"))
                })
        }

        /// Closes at once (``MQTTByteStream/close()``).

        public func close() {
            lifecycle.close()
            if lifecycle.isStarted {
                connection.cancel()  // `cancelled` follows, which ends `inbound`
            } else {
                lifecycle.end(otherwise: .connectionClosed(endpoint: endpoint, reason: "closed by this client"))
            }
        }

        // MARK: Events

        private func changed(_ new: NWConnection.State) {
            switch new {
            case .ready:
                lifecycle.ready()
                receive()
            case .waiting(let error), .failed(let error):
                lifecycle.fail(describe(error))
                connection.cancel()
            case .cancelled:
                lifecycle.end(otherwise: .connectionClosed(endpoint: endpoint, reason: "the connection was cancelled"))
            case .setup, .preparing:
                break
            @unknown default:
                break
            }
        }

        /// Reads the next bytes (TCP) or message (WebSocket), and again after them.
        private func receive() {
            if target.transport.usesWebSocket {
                connection.receiveMessage { [weak self] data, context, _, error in
                    guard let self else { return }
                    if let metadata = context?.protocolMetadata(definition: NWProtocolWebSocket.definition)
                        as? NWProtocolWebSocket.Metadata,
                        metadata.opcode == .close
                    {
                        lifecycle.fail(.connectionClosed(endpoint: endpoint, reason: "the broker closed the WebSocket"))
                        connection.cancel()
                        return
                    }
                    received(data, finished: false, error: error)
                }
            } else {
                connection.receive(minimumIncompleteLength: 1, maximumLength: 1 << 16) { [weak self] data, _, isComplete, error in
                    self?.received(data, finished: isComplete, error: error)
                }
            }
        }

        private func received(_ data: Data?, finished: Bool, error: NWError?) {
            if let data { lifecycle.received(Array(data)) }
            if let error {
                lifecycle.fail(describe(error))
                connection.cancel()
            } else if finished {
                lifecycle.fail(.connectionClosed(endpoint: endpoint, reason: "the broker closed the connection"))
                connection.cancel()
            } else {
                receive()
            }
        }

        /// A Network.framework error as the step it failed: connecting, TLS, or the connection.
        private func describe(_ error: NWError) -> PhoneMQTTError {
            switch error {
            case .tls(let status):
                let reason = trustFailure.withLock { $0 } ?? Self.message(status)
                return .tlsFailed(endpoint: endpoint, reason: reason)
            case .dns:
                return .connectionFailed(endpoint: endpoint, reason: "cannot resolve the host: \(error.debugDescription)")
            default:
                return lifecycle.isReady
                    ? .connectionClosed(endpoint: endpoint, reason: error.debugDescription)
                    : .connectionFailed(endpoint: endpoint, reason: error.debugDescription)
            }
        }
    }
#endif
