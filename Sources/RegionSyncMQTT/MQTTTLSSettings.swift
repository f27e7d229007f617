import Foundation

/// A client certificate and its key, as a PKCS #12 bundle (`openssl pkcs12 -export`), for brokers
/// that ask phones for one (mosquitto's `require_certificate true`).
public struct PhoneMQTTClientIdentity: Sendable, Hashable {
    /// The bundle's bytes (`.p12`).
    public var pkcs12: [UInt8]
    /// The bundle's password.
    public var password: String

    /// An identity from a PKCS #12 bundle and its password.
    public init(pkcs12: [UInt8], password: String) {
        self.pkcs12 = pkcs12
        self.password = password
    }
}

/// What a TLS connection trusts and shows.
public struct MQTTTLSSettings: Sendable, Hashable {
    /// The certificates accepted as roots of the broker's chain, DER; `nil`: the system's trust store.
    public var trustedCertificates: [[UInt8]]?
    /// The client certificate, if the broker asks for one.
    public var clientIdentity: PhoneMQTTClientIdentity?

    /// Settings trusting `trustedCertificates` (DER; `nil`: the system's store) and showing `clientIdentity`.
    public init(trustedCertificates: [[UInt8]]? = nil, clientIdentity: PhoneMQTTClientIdentity? = nil) {
        self.trustedCertificates = trustedCertificates
        self.clientIdentity = clientIdentity
    }

    /// Settings trusting the certificates in `caCertificate`: PEM (one or more
    /// `-----BEGIN CERTIFICATE-----` blocks) or one DER certificate.
    public init(caCertificate: [UInt8]?, clientIdentity: PhoneMQTTClientIdentity? = nil) throws(PhoneMQTTError) {
        // Not `Optional.map`: it rethrows untyped in the Swift 5.9 standard library of the iOS 17 SDK.
        if let caCertificate {
            self.init(trustedCertificates: try Self.derCertificates(in: caCertificate), clientIdentity: clientIdentity)
        } else {
            self.init(trustedCertificates: nil, clientIdentity: clientIdentity)
        }
    }

    /// The DER certificates in `bytes`, PEM or DER.
    public static func derCertificates(in bytes: [UInt8]) throws(PhoneMQTTError) -> [[UInt8]] {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        guard let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN") else {
            // DER: one certificate, an ASN.1 SEQUENCE.
            guard bytes.count > 16, bytes[0] == 0x30 else {
                throw .invalidCertificate("the CA certificate is neither PEM nor DER (\(bytes.count) bytes)")
            }
            return [bytes]
        }
        var certificates: [[UInt8]] = []
        var rest = text[...]
        while let start = rest.range(of: begin) {
            guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                throw .invalidCertificate("a PEM certificate without its '\(end)' line")
            }
            let base64 = rest[start.upperBound..<stop.lowerBound]
            guard let der = Data(base64Encoded: String(base64), options: .ignoreUnknownCharacters), der.first == 0x30 else {
                throw .invalidCertificate("a PEM certificate whose base64 is not a DER certificate")
            }
            certificates.append(Array(der))
            rest = rest[stop.upperBound...]
        }
        guard !certificates.isEmpty else { throw .invalidCertificate("PEM without any '\(begin)' block") }
        return certificates
    }
}
