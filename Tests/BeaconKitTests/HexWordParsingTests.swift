import BeaconKit
import Testing
import Topology

@Suite("Hex digits eight at a time")
struct HexWordParsingTests {
    static let digits = Array("0123456789abcdefABCDEF".utf8)

    /// The digit-by-digit reference (`Hex.parse`, which reads one byte at a time).
    func reference(_ bytes: [UInt8]) -> UInt64? { bytes.withUnsafeBufferPointer { Hex.parse($0) } }

    func word(_ bytes: [UInt8]) -> UInt64 { bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) } }

    @Test("parse8 answers as the digit-by-digit parse for every byte value at every position of random digit runs")
    func everyByteEverywhere() {
        var random = SplitMix64(seed: 8)
        for _ in 0..<50 {
            let valid = (0..<8).map { _ in Self.digits.randomElement(using: &random)! }
            #expect(Hex.parse8(word(valid)).map(UInt64.init) == reference(valid))
            #expect(Hex.parse8(word(valid)) != nil)
            for position in 0..<8 {
                for byte in UInt8.min...UInt8.max {
                    var bytes = valid
                    bytes[position] = byte
                    #expect(Hex.parse8(word(bytes)).map(UInt64.init) == reference(bytes), "byte \(byte) at \(position)")
                }
            }
        }
    }

    @Test("UUIDs and addresses parse as digit by digit, and any non-digit or wrong separator is rejected")
    func identities() {
        var random = SplitMix64(seed: 36)
        for _ in 0..<2_000 {
            var uuid = Array(
                (0..<36).map { [8, 13, 18, 23].contains($0) ? UInt8(ascii: "-") : Self.digits.randomElement(using: &random)! })
            var address = Array(
                (0..<17).map {
                    $0 % 3 == 2 ? UInt8(ascii: Bool.random(using: &random) ? ":" : "-") : Self.digits.randomElement(using: &random)!
                })
            if Bool.random(using: &random) { uuid[Int.random(in: 0..<36, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            if Bool.random(using: &random) { address[Int.random(in: 0..<17, using: &random)] = UInt8.random(in: 0...255, using: &random) }

            let uuidDigits = uuid.enumerated().filter { ![8, 13, 18, 23].contains($0.offset) }.map(\.element)
            let uuidHyphens = [8, 13, 18, 23].allSatisfy { uuid[$0] == UInt8(ascii: "-") }
            let expectedUUID =
                uuidHyphens
                ? reference(Array(uuidDigits[..<16])).flatMap { high in reference(Array(uuidDigits[16...])).map { (high, $0) } } : nil
            let parsedUUID = uuid.withUnsafeBufferPointer { BeaconUUID(utf8: $0) }
            #expect(parsedUUID.map { [$0.high, $0.low] } == expectedUUID.map { [$0.0, $0.1] }, "\(String(decoding: uuid, as: UTF8.self))")

            let addressDigits = address.enumerated().filter { $0.offset % 3 != 2 }.map(\.element)
            let separators = address.enumerated().filter { $0.offset % 3 == 2 }.allSatisfy {
                $0.element == UInt8(ascii: ":") || $0.element == UInt8(ascii: "-")
            }
            let expectedAddress = separators ? reference(addressDigits) : nil
            let parsedAddress = address.withUnsafeBufferPointer { BluetoothAddress(utf8: $0) }
            #expect(parsedAddress?.rawValue == expectedAddress, "\(String(decoding: address, as: UTF8.self))")
        }
    }
}
