/// A value read from ASCII text without Foundation: ``BeaconUUID`` and ``BluetoothAddress``
/// parse bytes (``init(utf8:)``, the hot path of the wire codec) and get the `String` form from it.
public protocol UTF8Parsable {
    /// Parses the text's UTF-8 bytes; `nil` when malformed.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>)
}

extension UTF8Parsable {
    /// Parses `text` (see ``init(utf8:)`` for the accepted form); `nil` when malformed.
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        guard let parsed = text.withUTF8({ Self(utf8: $0) }) else { return nil }
        self = parsed
    }
}
