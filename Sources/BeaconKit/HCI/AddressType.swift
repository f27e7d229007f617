/// The kind of address an advertising report carries (HCI `Address_Type`).
///
/// A struct over the raw byte rather than an enum, so that values the specification adds later
/// pass through unchanged instead of being rejected.
public struct AddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// A public device address.
    public static let `public` = AddressType(rawValue: 0x00)
    /// A random device address (static or private).
    public static let random = AddressType(rawValue: 0x01)
    /// A public identity address resolved by the controller from a resolvable private address.
    public static let publicIdentity = AddressType(rawValue: 0x02)
    /// A random (static) identity address resolved by the controller.
    public static let randomIdentity = AddressType(rawValue: 0x03)
    /// No address provided (anonymous advertisement, extended reports only).
    public static let anonymous = AddressType(rawValue: 0xFF)

    /// `public`, `random`, `public-identity`, `random-identity`, `anonymous`, or `0xNN` for others.
    public var description: String {
        switch rawValue {
        case 0x00: "public"
        case 0x01: "random"
        case 0x02: "public-identity"
        case 0x03: "random-identity"
        case 0xFF: "anonymous"
        default: "0x" + Hex.string(UInt64(rawValue), digits: 2)
        }
    }
}
