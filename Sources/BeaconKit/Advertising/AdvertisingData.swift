/// The advertising data of one report (a sequence of AD structures), as a borrowed view.
///
/// It points into the HCI event it came from and is valid only while that event's bytes are,
/// which for ``AdvertisingReportDecoder`` means during the callback. Call ``parse()`` or copy
/// ``bytes`` to keep anything.
public struct AdvertisingData {
    /// The raw advertising data.
    public let bytes: UnsafeRawBufferPointer

    /// A view of `bytes`.
    public init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Calls `body` for every AD structure in order; returns the error that stopped the parse,
    /// if any (a structure whose length runs past the end). A zero length byte ends the data
    /// (the rest is padding), as the Core specification says.
    @discardableResult
    public func forEachStructure(_ body: (ADStructure) -> Void) -> AdvertisingDataError? {
        var offset = 0
        let count = bytes.count
        while offset < count {
            let length = Int(bytes[offset])
            if length == 0 { return nil }
            guard offset + 1 + length <= count else {
                return .structureOverrun(offset: offset, length: length, available: count - offset - 1)
            }
            let value = UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<(offset + 1 + length)])
            body(ADStructure(type: ADType(rawValue: bytes[offset + 1]), value: value, offset: offset))
            offset += 1 + length
        }
        return nil
    }

    /// Finds the beacon in this data (iBeacon, AltBeacon or Eddystone), if any.
    ///
    /// The whole data is always walked, so a malformed structure after the beacon is still
    /// reported in ``BeaconDecoding/error``; the first beacon found is kept.
    public func decodeBeacon() -> BeaconDecoding {
        // The per-report hot path: a plain loop (no closure, no intermediate values) that looks
        // only at manufacturer data and 16-bit service data.
        var beacon: Beacon?
        var error: AdvertisingDataError?
        var offset = 0
        let count = bytes.count
        while offset < count {
            let length = Int(bytes[offset])
            if length == 0 { break }
            guard offset + 1 + length <= count else {
                if error == nil { error = .structureOverrun(offset: offset, length: length, available: count - offset - 1) }
                break
            }
            let type = bytes[offset + 1]
            if beacon == nil, type == ADType.manufacturerData.rawValue || type == ADType.serviceData16.rawValue {
                let structure = ADStructure(
                    type: ADType(rawValue: type), value: UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<(offset + 1 + length)]),
                    offset: offset)
                switch BeaconDecoder.decode(structure) {
                case .success(let found): beacon = found
                case .failure(let failure): if error == nil { error = failure }
                }
            }
            offset += 1 + length
        }
        return BeaconDecoding(beacon: beacon, error: error)
    }

    /// Decodes every AD structure into an owned summary (names, UUIDs, service and manufacturer
    /// data, the beacon). Allocates; meant for display, not for the per-report hot path.
    public func parse() -> ParsedAdvertisingData {
        ParsedAdvertisingData(self)
    }
}

/// The beacon found in one advertisement's data, and the first problem met on the way.
public struct BeaconDecoding: Sendable, Hashable {
    /// The first beacon in the data, if any.
    public var beacon: Beacon?
    /// The first malformed structure or beacon payload, if any. A beacon found before it stands.
    public var error: AdvertisingDataError?
}
