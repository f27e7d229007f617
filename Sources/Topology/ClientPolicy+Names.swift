public import BeaconKit

extension ClientPolicy {
    /// What people call the client tracked as `identity`: the `name` of the first `client` rule of
    /// `clients.csv` that admits it, followed by what tells it apart from the rule's other
    /// identities (nothing when the rule admits this identity alone):
    ///
    /// - a `uuid` rule with one major: the minor (`Trolley 7`); with several: `major.minor`;
    /// - a `namespace` rule: the instance (`Badge 0000000000A1`);
    /// - an `address` range: the address; a single address: the name alone.
    ///
    /// `nil` when no naming rule admits it (a venue rule comes first, as in ``verdict(for:address:)``).
    public func name(of identity: BeaconIdentity) -> String? {
        let address = identity.kind == .address ? identity.address.rawValue : 0
        for rule in rules where rule.role == .venue && rule.matches(identity, address: address) { return nil }
        for rule in rules where rule.role == .client && rule.matches(identity, address: address) {
            guard let name = rule.name else { continue }
            switch rule.match {
            case .uuid(_, let majors):
                return majors.count == 1 ? "\(name) \(identity.minor)" : "\(name) \(identity.major).\(identity.minor)"
            case .namespace:
                return "\(name) \(identity.instanceHex)"
            case .addresses(let range):
                return range.count == 1 ? name : "\(name) \(identity.address)"
            }
        }
        return nil
    }
}

extension BeaconIdentity {
    /// The identity a client identifier names (``clientIdentifier``'s three forms:
    /// `UUID.major.minor`, `NAMESPACE.INSTANCE`, `addr-AABBCCDDEEFF`); `nil` for any other text (a
    /// phone's own id).
    public init?(clientIdentifier text: String) {
        if text.hasPrefix("addr-") {
            let digits = text.dropFirst(5)
            guard digits.count == 12, let value = UInt64(digits, radix: 16) else { return nil }
            self.init(address: BluetoothAddress(rawValue: value))
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 3, let major = UInt16(parts[1]), let minor = UInt16(parts[2]), let uuid = BeaconUUID(String(parts[0])) {
            self.init(uuid: uuid, major: major, minor: minor)
            return
        }
        if parts.count == 2, let namespace = EddystoneNamespace(hex: String(parts[0])), parts[1].count == 12,
            let instance = UInt64(parts[1], radix: 16)
        {
            self.init(namespace: namespace, instance: EddystoneInstance(rawValue: instance))
            return
        }
        return nil
    }
}
