import BeaconKit
public import Foundation

extension ClientReport {
    /// The most slots a report's `budget` may state (iOS's limit per app).
    public static let maximumBudget = 20
    /// The most region ids a report's `monitored` may list.
    public static let maximumMonitored = 100
    /// The longest region id an event may name, in bytes, when it is not a valid identifier.
    public static let maximumRegionBytes = 128

    /// Decodes a report received on `topic` and checks it: size, JSON, `"v": 1`, and the bounds
    /// the contract sets beyond the types (see ``validate(topic:)``). Every failure is a
    /// ``WireError`` naming the topic and the field. Pass a `decoder` to reuse one.
    public static func decode(
        _ payload: UnsafeRawBufferPointer, topic: String, decoder: JSONDecoder = WireCoding.makeDecoder()
    ) throws(WireError) -> ClientReport {
        guard payload.count <= WireCoding.maximumPayloadBytes else {
            throw .oversizedPayload(topic: topic, bytes: payload.count, limit: WireCoding.maximumPayloadBytes)
        }
        let report: ClientReport
        do {
            report = try decoder.decode(ClientReport.self, from: Data(payload))
        } catch let error as DecodingError {
            throw .invalidPayload(topic: topic, reason: WireCoding.describe(error))
        } catch {
            throw .invalidPayload(topic: topic, reason: "\(error)")
        }
        guard report.v == 1 else { throw .unsupportedVersion(topic: topic, version: report.v) }
        try report.validate(topic: topic)
        return report
    }

    /// Checks what the types alone do not: `budget` within 0...20, every ranged UUID a UUID and
    /// RSSI within -128...20 dBm with a finite accuracy, the advertised identity a UUID, event
    /// region ids of sane length, at most 100 `monitored` entries, and `phone.os` of at most 64
    /// bytes. Values of `phone` this build does not know were already read as absent.
    public func validate(topic: String) throws(WireError) {
        if let budget, !(0...Self.maximumBudget).contains(budget) {
            throw .invalidPayload(topic: topic, reason: "field budget: \(budget) is outside 0...\(Self.maximumBudget)")
        }
        for (i, beacon) in ranged.enumerated() {
            guard BeaconUUID(beacon.uuid) != nil else {
                throw .invalidPayload(topic: topic, reason: "field ranged[\(i)].uuid: not a UUID (8-4-4-4-12 hex digits)")
            }
            guard (-128...20).contains(beacon.rssi) else {
                throw .invalidPayload(topic: topic, reason: "field ranged[\(i)].rssi: \(beacon.rssi) dBm is outside -128...20")
            }
            if let accuracy = beacon.accuracy, !accuracy.isFinite {
                throw .invalidPayload(topic: topic, reason: "field ranged[\(i)].accuracy: not a finite number")
            }
        }
        if let advertising, advertising.identity == nil {
            throw .invalidPayload(topic: topic, reason: "field advertising.uuid: not a UUID (8-4-4-4-12 hex digits)")
        }
        for (i, event) in events.enumerated() where !Identifier.isValid(event.region) && event.region.utf8.count > Self.maximumRegionBytes {
            throw .invalidPayload(topic: topic, reason: "field events[\(i)].region: longer than \(Self.maximumRegionBytes) bytes")
        }
        if let monitored, monitored.count > Self.maximumMonitored {
            throw .invalidPayload(topic: topic, reason: "field monitored: \(monitored.count) entries, more than \(Self.maximumMonitored)")
        }
        if let os = phone?.os, os.utf8.count > PhoneStatus.maximumOSBytes {
            throw .invalidPayload(topic: topic, reason: "field phone.os: longer than \(PhoneStatus.maximumOSBytes) bytes")
        }
    }
}
