// libFuzzer entry point for BeaconKit's decoders. Compiled together with Sources/BeaconKit by
// scripts/fuzz (swiftc -sanitize=fuzzer,address), so it calls the module's internals directly.
//
// Every input is fed to all three layers: as an H4 HCI packet (HCI event and advertising report
// decoding, AD parsing, beacon decoding), as raw advertising data (AD parsing and the owned
// summary), and as a whole capture file (btsnoop, pcap, pcapng readers), whose records are then
// decoded too. Nothing may trap; the counters must stay consistent.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)

    var decoder = AdvertisementDecoder()
    var delivered = 0
    decoder.decode(h4Packet: bytes, timestampMicroseconds: 0) { advertisement in
        delivered += 1
        _ = advertisement.data.parse()
    }
    precondition(delivered == decoder.statistics.advertisingReports, "delivered reports and counters disagree")

    let advertisingData = AdvertisingData(bytes: bytes)
    _ = advertisingData.decodeBeacon()
    _ = advertisingData.parse()

    // The last byte picks the reader's buffer size (64 … 1084 bytes), so refills, compaction and
    // growth are exercised as they are on large files.
    let bufferSize = 64 + Int(size > 0 ? data[size - 1] : 0) * 4
    if let reader = try? CaptureReader(bytes: Array(bytes), name: "fuzz", bufferSize: bufferSize) {
        var captureDecoder = AdvertisementDecoder()
        var records = 0
        while let record = try? reader.next() {
            records += 1
            captureDecoder.decode(record) { _ in }
        }
        let statistics = reader.statistics
        precondition(records == statistics.records, "delivered records and counters disagree")
        precondition(statistics.bytesRead <= UInt64(size), "read more bytes than the input holds")
    }
    return 0
}
