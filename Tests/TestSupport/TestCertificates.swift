public import Foundation

/// A throw-away certificate authority made with `openssl` at test time: a CA, a server certificate for
/// `localhost` / 127.0.0.1 and a client certificate, all PEM files in `directory`.
public struct TestCertificates: Sendable {
    /// The directory holding the files.
    public let directory: URL
    public var caFile: String { path("ca.crt") }
    public var serverCertificateFile: String { path("server.crt") }
    public var serverKeyFile: String { path("server.key") }
    public var clientCertificateFile: String { path("client.crt") }
    public var clientKeyFile: String { path("client.key") }

    /// Makes a new CA with server and client certificates in a fresh temporary directory.
    public static func make(commonName: String = "BeaconFleet Test CA") throws -> TestCertificates {
        let directory = try makeTemporaryDirectory("beaconfleet-certs")
        let certificates = TestCertificates(directory: directory)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try certificates.openssl(
            ["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=\(commonName)"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
            .write(to: directory.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
        try "extendedKeyUsage=clientAuth\n".write(to: directory.appendingPathComponent("client.ext"), atomically: true, encoding: .utf8)
        for name in ["server", "client"] {
            try certificates.openssl(
                ["req"] + key + [
                    "-keyout", "\(name).key", "-out", "\(name).csr", "-subj",
                    "/CN=\(name == "server" ? "localhost" : "beaconfleet-client")",
                ])
            try certificates.openssl([
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "\(name).crt", "-days", "2", "-extfile", "\(name).ext",
            ])
        }
        return certificates
    }

    /// Removes the directory.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let log = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CertificateError(command: "openssl " + arguments.joined(separator: " "), output: String(decoding: log, as: UTF8.self))
        }
    }

    /// `openssl` failed.
    public struct CertificateError: Error, CustomStringConvertible {
        public var command: String
        public var output: String
        public var description: String { "\(command) failed: \(output)" }
    }
}
