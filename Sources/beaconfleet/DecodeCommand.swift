import ArgumentParser
import BeaconKit
import Foundation
import WireProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `beaconfleet decode`: prints the beacon advertisements of capture files and a summary.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode the beacon advertisements in btsnoop, pcap or pcapng captures.",
        discussion: """
            The container is detected from each file's header: btsnoop (datalinks 1001, 1002, 2001), \
            pcap and pcapng (link types 187 and 201). Only LE Advertising Report and LE Extended \
            Advertising Report events count as advertisements.

            Prints one line per beacon advertisement (iBeacon, AltBeacon, Eddystone UID/URL/TLM) on \
            stdout; with --json one JSON object per line with time, address, addressType, rssi, \
            format and the format's fields (uuid upper-case, major, minor, txPower, namespace, \
            instance, url, batteryMillivolts, temperature, advertisingCount, uptimeSeconds). A summary \
            goes to stderr: records, advertising reports, beacons by format, malformed frames skipped.

            Exits 1 when a file cannot be read or is no known capture format (the other files are \
            still decoded).

            Examples:
              beaconfleet decode --json ../shared/data/captures/horizon74-ibeacon.btsnoop
              beaconfleet decode --all --json capture.pcapng \\
                  | jq 'select(.format == "other")'
              beaconfleet decode --quiet a.btsnoop b.pcap      # summaries only
            """
    )

    @Flag(name: .long, help: "Print one JSON object per line instead of text.")
    var json = false

    @Flag(
        name: .long,
        help: "Also print advertisements that are not beacons (format \"other\" or \"eddystone-unknown\") with their AD structures.")
    var all = false

    @Flag(name: [.short, .long], help: "Print only the summary.")
    var quiet = false

    @Argument(help: "Capture files (btsnoop, pcap or pcapng).")
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one capture FILE") }
    }

    func run() throws {
        var output = DecodeOutputBuffer(fd: 1)
        var total = DecodeStatistics()
        var totalCapture = CaptureStatistics()
        var failures = 0
        for file in files {
            do {
                let reader = try CaptureReader(path: file)
                var decoder = AdvertisementDecoder()
                var line = [UInt8]()
                while let record = try reader.next() {
                    decoder.decode(record) { advertisement in
                        guard !quiet else { return }
                        guard advertisement.beacon.map({ $0.format != .eddystoneUnknown }) ?? false || all else { return }
                        line.removeAll(keepingCapacity: true)
                        if json {
                            DecodeJSONLine.write(
                                advertisement, record: record.number, file: files.count > 1 ? file : nil, all: all, to: &line)
                        } else {
                            DecodeTextLine.write(advertisement, file: files.count > 1 ? file : nil, all: all, to: &line)
                        }
                        line.append(UInt8(ascii: "\n"))
                        output.append(line)
                    }
                }
                output.flush()
                let summary = DecodeSummary(file: file, format: reader.format, capture: reader.statistics, decode: decoder.statistics)
                decodePrintError(summary.text)
                for issue in reader.issues.prefix(10) { decodePrintError("  \(issue)") }
                for issue in decoder.issues.prefix(10) { decodePrintError("  \(file): \(issue)") }
                let hidden = max(0, reader.issues.count - 10) + max(0, decoder.issues.count - 10)
                if hidden > 0 { decodePrintError("  … and \(hidden) more problem(s) not shown") }
                total.add(decoder.statistics)
                totalCapture.records += reader.statistics.records
                totalCapture.skippedRecords += reader.statistics.skippedRecords
                totalCapture.malformedRecords += reader.statistics.malformedRecords
            } catch {
                output.flush()
                decodePrintError("beaconfleet decode: \(error)")
                failures += 1
            }
        }
        if files.count > 1 {
            decodePrintError(DecodeSummary(file: "total", format: nil, capture: totalCapture, decode: total).text)
        }
        if failures > 0 { throw ExitCode(1) }
    }
}

/// The per-file summary printed on stderr.
struct DecodeSummary {
    var file: String
    var format: CaptureFormat?
    var capture: CaptureStatistics
    var decode: DecodeStatistics

    var text: String {
        let formats = BeaconFormat.allCases.map { "\($0.rawValue) \(decode.beacons[$0])" }.joined(separator: ", ")
        let malformed = capture.malformedRecords + decode.malformed
        return """
            \(file):\(format.map { " \($0)," } ?? "") \(capture.records + capture.skippedRecords + capture.malformedRecords) records \
            (\(capture.records) HCI packets, \(capture.skippedRecords) skipped), \(decode.events) events, \
            \(decode.advertisingReports) advertising reports (\(decode.legacyReports) legacy, \(decode.extendedReports) extended) \
            in \(decode.advertisingEvents) events, beacons \(decode.beacons.total) (\(formats)), \
            malformed frames skipped \(malformed) (records \(capture.malformedRecords), events \(decode.malformedEvents), \
            advertising data \(decode.malformedAdvertisingData))
            """
    }
}

/// `decode --json`: one object per advertisement, keys in a fixed readable order.
enum DecodeJSONLine {
    static func write(_ ad: Advertisement, record: Int, file: String?, all: Bool, to out: inout [UInt8]) {
        var object = DecodeJSONObject(out: out)
        defer { out = object.finish() }
        if let file { object.string("file", file) }
        object.number("record", record)
        if let time = ad.timestampMicroseconds { object.string("time", decodeRFC3339(time)) } else { object.null("time") }
        object.string("address", ad.report.address.description)
        object.string("addressType", ad.report.addressType.description)
        if let rssi = ad.report.rssi { object.number("rssi", Int(rssi)) } else { object.null("rssi") }
        object.string("format", ad.beacon?.format.rawValue ?? "other")
        switch ad.beacon {
        case .iBeacon(let b)?:
            object.string("uuid", b.uuid.description)
            object.number("major", Int(b.major))
            object.number("minor", Int(b.minor))
            object.number("txPower", Int(b.measuredPower))
        case .altBeacon(let b)?:
            object.string("uuid", b.id1.description)
            object.number("major", Int(b.id2))
            object.number("minor", Int(b.id3))
            object.number("txPower", Int(b.referenceRSSI))
            object.number("manufacturer", Int(b.manufacturerID))
            object.number("reserved", Int(b.reserved))
        case .eddystoneUID(let b)?:
            object.string("namespace", b.namespace.description)
            object.string("instance", b.instance.description)
            object.number("txPower", Int(b.txPower))
        case .eddystoneURL(let b)?:
            object.string("url", b.url)
            object.number("txPower", Int(b.txPower))
        case .eddystoneTLM(let b)?:
            if let mv = b.batteryMillivolts { object.number("batteryMillivolts", Int(mv)) } else { object.null("batteryMillivolts") }
            if let t = b.temperature { object.double("temperature", t) } else { object.null("temperature") }
            object.number("advertisingCount", Int(b.advertisingCount))
            object.double("uptimeSeconds", b.uptimeSeconds)
        case .eddystoneUnknown(let frameType)?:
            object.number("frameType", Int(frameType))
        case nil:
            break
        }
        object.string("report", ad.report.kind.description)
        object.number("eventType", Int(ad.report.eventType.rawValue))
        if ad.report.kind == .extended {
            if let phy = ad.report.primaryPHY { object.string("primaryPhy", phy.description) }
            if let phy = ad.report.secondaryPHY { object.string("secondaryPhy", phy.description) }
            if let sid = ad.report.advertisingSID { object.number("sid", Int(sid)) }
            if let tx = ad.report.txPower { object.number("advertiserTxPower", Int(tx)) }
            object.string("dataStatus", ad.report.eventType.dataStatus.description)
        }
        if all {
            let parsed = ad.data.parse()
            if let flags = parsed.flags { object.number("flags", Int(flags)) }
            if let name = parsed.localName { object.string("name", name) }
            if !parsed.serviceUUIDs.isEmpty { object.strings("serviceUuids", parsed.serviceUUIDs.map(\.description)) }
            if let tx = parsed.txPowerLevel { object.number("txPowerLevel", Int(tx)) }
            if !parsed.manufacturerData.isEmpty {
                object.objects("manufacturerData", parsed.manufacturerData) { entry, data in
                    entry.number("company", Int(data.companyID))
                    entry.string("data", decodeHex(data.data))
                }
            }
            if !parsed.serviceData.isEmpty {
                object.objects("serviceData", parsed.serviceData) { entry, data in
                    entry.string("uuid", "\(data.uuid)")
                    entry.string("data", decodeHex(data.data))
                }
            }
            object.string("data", decodeHex(Array(ad.data.bytes)))
        }
        if let error = ad.dataError { object.string("dataError", error.description) }
    }
}

/// Plain-text lines for `decode` without `--json`.
enum DecodeTextLine {
    static func write(_ ad: Advertisement, file: String?, all: Bool, to out: inout [UInt8]) {
        var fields: [String] = []
        if let file { fields.append(file) }
        fields.append(ad.timestampMicroseconds.map(decodeRFC3339) ?? "-")
        fields.append("\(ad.report.address) (\(ad.report.addressType))")
        fields.append(ad.report.rssi.map { "\($0) dBm" } ?? "rssi n/a")
        switch ad.beacon {
        case .iBeacon(let b)?:
            fields.append("ibeacon \(b.uuid.description) major \(b.major) minor \(b.minor) txPower \(b.measuredPower)")
        case .altBeacon(let b)?:
            fields.append(
                "altbeacon \(b.id1.description) major \(b.id2) minor \(b.id3) txPower \(b.referenceRSSI) manufacturer 0x\(String(b.manufacturerID, radix: 16))"
            )
        case .eddystoneUID(let b)?:
            fields.append("eddystone-uid namespace \(b.namespace) instance \(b.instance) txPower \(b.txPower)")
        case .eddystoneURL(let b)?:
            fields.append("eddystone-url \(b.url) txPower \(b.txPower)")
        case .eddystoneTLM(let b)?:
            fields.append(
                "eddystone-tlm battery \(b.batteryMillivolts.map { "\($0) mV" } ?? "n/a") temperature \(b.temperature.map { "\($0) °C" } ?? "n/a") count \(b.advertisingCount) uptime \(b.uptimeSeconds) s"
            )
        case .eddystoneUnknown(let frameType)?:
            fields.append("eddystone-unknown frame type 0x\(String(frameType, radix: 16))")
        case nil:
            let parsed = ad.data.parse()
            var text = "other"
            if let name = parsed.localName { text += " name \"\(name)\"" }
            if !parsed.serviceUUIDs.isEmpty { text += " services " + parsed.serviceUUIDs.map(\.description).joined(separator: ",") }
            for m in parsed.manufacturerData { text += " manufacturer 0x\(String(m.companyID, radix: 16)) \(decodeHex(m.data))" }
            text += " data \(decodeHex(Array(ad.data.bytes)))"
            fields.append(text)
        }
        if let error = ad.dataError { fields.append("[\(error)]") }
        out.append(contentsOf: fields.joined(separator: "  ").utf8)
    }
}

/// Microseconds since 1970 as RFC 3339 UTC with milliseconds.
func decodeRFC3339(_ microseconds: Int64) -> String {
    let (q, r) = microseconds.quotientAndRemainder(dividingBy: 1000)
    return RFC3339.string(millisecondsSince1970: r < 0 ? q - 1 : q)
}

/// Lower-case hex.
func decodeHex(_ bytes: [UInt8]) -> String { Hex.string(bytes: bytes, lowercase: true) }

/// Writes one flat JSON object, in the order fields are added.
struct DecodeJSONObject {
    private var out: [UInt8]
    private var first = true

    init(out: [UInt8]) {
        self.out = out
        self.out.append(UInt8(ascii: "{"))
    }

    mutating func finish() -> [UInt8] {
        out.append(UInt8(ascii: "}"))
        return out
    }

    private mutating func key(_ name: String) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        appendQuoted(name)
        out.append(UInt8(ascii: ":"))
    }

    mutating func string(_ name: String, _ value: String) {
        key(name)
        appendQuoted(value)
    }

    mutating func strings(_ name: String, _ values: [String]) {
        key(name)
        out.append(UInt8(ascii: "["))
        for (i, value) in values.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendQuoted(value)
        }
        out.append(UInt8(ascii: "]"))
    }

    mutating func number(_ name: String, _ value: Int) {
        key(name)
        out.append(contentsOf: String(value).utf8)
    }

    mutating func double(_ name: String, _ value: Double) {
        key(name)
        out.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
    }

    mutating func null(_ name: String) {
        key(name)
        out.append(contentsOf: "null".utf8)
    }

    /// An array of objects, each with the fields `fields` adds, in that order.
    mutating func objects<Item>(_ name: String, _ items: [Item], _ fields: (inout DecodeJSONObject, Item) -> Void) {
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var object = DecodeJSONObject(out: [])
            fields(&object, item)
            out += object.finish()
        }
        out.append(UInt8(ascii: "]"))
    }

    private mutating func appendQuoted(_ text: String) {
        JSONBytes.appendString(text, to: &out)
    }
}

/// Buffered writes to a file descriptor (stdout), flushed at 64 KiB and on demand.
struct DecodeOutputBuffer {
    let fd: Int32
    private var bytes: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        bytes.reserveCapacity(1 << 16)
    }

    mutating func append(_ line: [UInt8]) {
        bytes.append(contentsOf: line)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return  // stdout closed (e.g. piped into `head`): nothing more to say
                }
                offset += n
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes `message` and a newline to stderr.
func decodePrintError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
