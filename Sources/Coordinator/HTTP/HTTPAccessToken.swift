import Foundation

/// The bearer token the map and the API require (`--http-token-file FILE` or
/// `BEACONFLEET_HTTP_TOKEN`; never a command-line value, which `ps` would show).
public struct HTTPAccessToken: Sendable {
    private let bytes: [UInt8]

    /// The shortest token accepted: 16 characters (`openssl rand -hex 32` gives 64).
    public static let minimumLength = 16

    /// The environment variable read when no token file is given.
    public static let environmentVariable = "BEACONFLEET_HTTP_TOKEN"

    /// `text` without surrounding whitespace (a file's trailing newline) as the token.
    public init(_ text: String) throws(HTTPAccessTokenError) {
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= Self.minimumLength else { throw .tooShort(token.count) }
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { throw .notPrintable }
        bytes = Array(token.utf8)
    }

    /// The token in `path`'s text.
    public init(contentsOf path: String) throws(HTTPAccessTokenError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path, error.localizedDescription)
        }
        try self.init(text)
    }

    /// Whether `candidate` is the token, in time that does not depend on where they differ.
    public func matches(_ candidate: some StringProtocol) -> Bool {
        var difference = UInt8(truncatingIfNeeded: candidate.utf8.count ^ bytes.count)
        var i = 0
        for byte in candidate.utf8 {
            difference |= byte ^ bytes[i % bytes.count]
            i += 1
        }
        return difference == 0 && i == bytes.count
    }
}

/// A token that cannot be used.
public enum HTTPAccessTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooShort(Int)
    case notPrintable
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .tooShort(let length):
            "the HTTP token has \(length) characters; at least \(HTTPAccessToken.minimumLength) are needed (for example `openssl rand -hex 32`)"
        case .notPrintable: "the HTTP token must be printable ASCII without spaces"
        case .unreadable(let path, let reason): "cannot read the HTTP token file \(path): \(reason)"
        }
    }
}
