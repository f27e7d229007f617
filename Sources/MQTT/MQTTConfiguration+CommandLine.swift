/// What every connecting command takes on its command line: `--broker` (one URL, or several
/// separated by commas: the first, then the others in turn when one fails) and `--mqtt-version`.
extension MQTTConfiguration {
    /// The accepted values of `--mqtt-version`.
    public static let versionChoices = "5, 3.1.1 or auto"

    /// Parses one broker URL or a comma-separated list (`mqtt://n1:1883,mqtt://n2:1883`); a comma
    /// inside a password is written `%2C`. Names the bad entry.
    public static func brokers(parsing text: String) throws(MQTTError) -> [BrokerURL] {
        var list: [BrokerURL] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = part.trimmingCharacters(in: .whitespaces)
            guard !entry.isEmpty else { throw .invalidURL(text, reason: "an empty entry in the comma-separated list") }
            list.append(try BrokerURL(parsing: entry))
        }
        return list
    }

    /// A configuration for the brokers of `--broker` (the first as ``url``, the rest as ``failoverURLs``).
    public init(brokers text: String, clientID: String? = nil) throws(MQTTError) {
        let list = try Self.brokers(parsing: text)
        self.init(url: list[0], clientID: clientID)
        failoverURLs = Array(list.dropFirst())
    }

    /// Applies `--mqtt-version`: `5` (MQTT 5 only), `3.1.1`, or `auto` (5, and 3.1.1 when the broker refuses 5).
    public mutating func setVersion(commandLine text: String) throws(MQTTError) {
        if text.lowercased() == "auto" {
            protocolVersion = .v5
            fallsBackToV311 = true
        } else if let version = MQTTProtocolVersion(commandLine: text) {
            protocolVersion = version
            fallsBackToV311 = false
        } else {
            throw .invalidConfiguration(field: "--mqtt-version", reason: "'\(text)' is not \(Self.versionChoices)")
        }
    }
}
