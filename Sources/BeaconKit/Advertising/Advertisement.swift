import Foundation

/// One decoded advertising report with its time and beacon; the ``data`` is a borrowed view,
/// valid only inside the callback that received it (see ``AdvertisementDecoder``).
public struct Advertisement {
    /// When the report was received, in microseconds since 1970 (`nil` if the source has no time).
    public var timestampMicroseconds: Int64?
    /// The report's header: address, RSSI, event type, PHYs.
    public var report: AdvertisingReport
    /// The report's advertising data (borrowed).
    public var data: AdvertisingData
    /// The beacon in the data, if any.
    public var beacon: Beacon?
    /// The first problem in the data, if any (already counted in the decoder's statistics).
    public var dataError: AdvertisingDataError?

    /// An owned copy that can be kept and sent across tasks.
    public func copy() -> DecodedAdvertisement {
        DecodedAdvertisement(
            timestampMicroseconds: timestampMicroseconds, report: report, data: Array(data.bytes), beacon: beacon, dataError: dataError)
    }
}

/// An owned, `Sendable` copy of an ``Advertisement``.
public struct DecodedAdvertisement: Sendable, Hashable {
    /// When the report was received, in microseconds since 1970.
    public var timestampMicroseconds: Int64?
    /// The report's header.
    public var report: AdvertisingReport
    /// The report's advertising data.
    public var data: [UInt8]
    /// The beacon in the data, if any.
    public var beacon: Beacon?
    /// The first problem in the data, if any.
    public var dataError: AdvertisingDataError?

    /// The advertising data decoded into names, UUIDs, service and manufacturer data.
    public func parsedData() -> ParsedAdvertisingData {
        data.withUnsafeBytes { AdvertisingData(bytes: $0).parse() }
    }
}
