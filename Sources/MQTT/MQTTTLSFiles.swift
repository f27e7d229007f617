/// The files a TLS (`mqtts://`) connection uses, all PEM.
public struct MQTTTLSFiles: Sendable, Hashable {
    /// CA certificate(s) that sign the broker's certificate; `nil` uses the operating system's CAs.
    public var caFile: String?
    /// The client certificate, when the broker requires one (`require_certificate true`).
    public var certificateFile: String?
    /// The client certificate's private key (unencrypted).
    public var keyFile: String?
    /// Skip checking that the broker's certificate names the host connected to. Only for tests.
    public var allowsAnyHostName: Bool

    /// TLS files; all optional (a client certificate needs its key).
    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, allowsAnyHostName: Bool = false) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.allowsAnyHostName = allowsAnyHostName
    }

    /// Whether any file is set.
    public var isEmpty: Bool { caFile == nil && certificateFile == nil && keyFile == nil }
}
