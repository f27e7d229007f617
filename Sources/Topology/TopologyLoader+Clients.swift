import BeaconKit

/// `clients.csv`: the venue's client admission policy (``ClientPolicy``).
extension LoadContext {
    mutating func parseClients(_ bytes: [UInt8]) {
        let file = TopologyLoader.FileName.clients
        let filePath = path(file)
        var rules: [ClientPolicy.Rule] = []
        parseCSV(bytes, file: file, required: ["role"], optional: ["uuid", "major", "namespace", "address", "name", "note"]) {
            context, row, columns in
            let roleText = row.string(columns["role"] ?? -1).lowercased()
            guard let role = ClientPolicy.Role(rawValue: roleText) else {
                context.error(
                    file, row.line, "role: '\(roleText)' is not 'client' (a tag or phone to track) or 'venue' (the venue's own beacon)")
                return
            }
            let uuidText = row.string(columns["uuid"] ?? -1)
            let majorText = row.string(columns["major"] ?? -1)
            let namespaceText = row.string(columns["namespace"] ?? -1)
            let addressText = row.string(columns["address"] ?? -1)
            let given = [uuidText, namespaceText, addressText].filter { !$0.isEmpty }.count
            guard given == 1 else {
                context.error(
                    file, row.line,
                    given == 0
                        ? "a rule needs one of uuid (with an optional major or major range), namespace or address"
                        : "a rule matches by one of uuid, namespace or address, not several (write one line for each)")
                return
            }
            if !majorText.isEmpty, uuidText.isEmpty {
                context.error(file, row.line, "major: needs a uuid")
                return
            }
            let match: ClientPolicy.Match
            if !uuidText.isEmpty {
                guard let uuid = BeaconUUID(uuidText) else {
                    context.error(file, row.line, "uuid: '\(uuidText)' is not a UUID (8-4-4-4-12 hex digits)")
                    return
                }
                var majors: ClosedRange<UInt16> = 0...UInt16.max
                if !majorText.isEmpty {
                    guard let range = Self.range(majorText, UInt16.init) else {
                        context.error(file, row.line, "major: '\(majorText)' is not a major or a range 'first-last' from 0 to 65535")
                        return
                    }
                    majors = range
                }
                match = .uuid(uuid, majors: majors)
            } else if !namespaceText.isEmpty {
                guard let namespace = EddystoneNamespace(hex: namespaceText) else {
                    context.error(file, row.line, "namespace: '\(namespaceText)' is not an Eddystone namespace (20 hex digits)")
                    return
                }
                match = .namespace(namespace)
            } else {
                guard let range = Self.range(addressText, { BluetoothAddress($0)?.rawValue }) else {
                    context.error(
                        file, row.line, "address: '\(addressText)' is not an address or a range 'AA:BB:CC:DD:EE:00-AA:BB:CC:DD:EE:FF'")
                    return
                }
                match = .addresses(range)
            }
            let name = row.string(columns["name"] ?? -1)
            rules.append(
                ClientPolicy.Rule(
                    role: role, match: match, name: name.isEmpty ? nil : name, source: SourceLocation(file: filePath, line: row.line)))
        }
        clientRules = rules
    }

    /// `value` or `first-last` (first ≤ last), each parsed by `parse`; nil when malformed.
    static func range<Value: Comparable>(_ text: String, _ parse: (String) -> Value?) -> ClosedRange<Value>? {
        // Addresses contain no '-' as written here (their separator is ':'), so one '-' splits a range.
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { String($0.filter { $0 != " " }) }
        switch parts.count {
        case 1:
            guard let value = parse(parts[0]) else { return nil }
            return value...value
        case 2:
            guard let first = parse(parts[0]), let last = parse(parts[1]), first <= last else { return nil }
            return first...last
        default:
            return nil
        }
    }
}
