import BeaconKit
import Testing
import Topology

@testable import Coordinator

@Suite("Beacon index")
struct BeaconIndexTests {
    /// Identities as venues have them: many tags under one UUID (only major/minor differ), a few
    /// UUIDs, Eddystone UIDs and bare addresses (high word 0).
    func identity(_ n: Int, _ random: inout SplitMix64) -> BeaconIdentity {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            BeaconIdentity(
                high: 0xE2C5_6DB5_DFFB_48D2, low: 0xB060_D0F5_A710_96E0, major: UInt16(n % 7), minor: UInt16(n % 4096),
                kind: .uuidMajorMinor)
        case 1: BeaconIdentity(high: UInt64(n % 3), low: UInt64(n % 5), major: UInt16(n % 11), minor: UInt16(n % 13), kind: .uuidMajorMinor)
        case 2:
            BeaconIdentity(
                high: 0xEDD1_EBEA_C04E_5DEF, low: UInt64(n % 512) << 48 | UInt64(n % 97), major: 0, minor: 0, kind: .eddystoneUID)
        default: BeaconIdentity(high: 0, low: UInt64(n % 2048), major: 0, minor: 0, kind: .address)
        }
    }

    @Test("inserts, updates, removals and lookups answer as a Dictionary does, through growth and removals in probe runs")
    func matchesDictionary() {
        var random = SplitMix64(seed: 16)
        var index = BeaconIndex()
        var model: [BeaconIdentity: Int32] = [:]
        for step in 0..<60_000 {
            let key = identity(Int.random(in: 0..<6_000, using: &random), &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let value = Int32.random(in: 0..<1_000_000, using: &random)
                index[key] = value
                model[key] = value
            case 5..<7:
                index[key] = nil
                model[key] = nil
            default:
                #expect(index[key] == model[key], "step \(step)")
            }
            #expect(index.count == model.count)
        }
        for (key, value) in model { #expect(index[key] == value) }
        for key in Array(model.keys) {
            index[key] = nil
            #expect(index[key] == nil)
        }
        #expect(index.count == 0)
        for (key, value) in model.prefix(100) { index[key] = value }
        for (key, value) in model.prefix(100) { #expect(index[key] == value) }
    }

    @Test("the version moves when an identity is removed or given another slot, not when one is added or set again")
    func versionMovesOnChange() {
        let a = BeaconIdentity(high: 1, low: 2, major: 3, minor: 4, kind: .uuidMajorMinor)
        let b = BeaconIdentity(high: 1, low: 2, major: 3, minor: 5, kind: .uuidMajorMinor)
        var index = BeaconIndex()
        let start = index.version
        index[a] = 1
        index[b] = 2
        for n in 0..<100 { index[BeaconIdentity(high: 9, low: UInt64(n), major: 0, minor: 0, kind: .address)] = Int32(10 + n) }
        index[a] = 1
        #expect(index.version == start, "additions (through growth) and the same slot again keep slots valid")
        index[a] = 7
        #expect(index.version == start + 1)
        index[b] = nil
        #expect(index.version == start + 2)
        index[b] = nil
        #expect(index.version == start + 2, "removing what is not there changes nothing")
    }

    @Test("an empty index answers nil and removing from it does nothing; a literal fills it")
    func emptyAndLiteral() {
        let key = BeaconIdentity(high: 1, low: 2, major: 3, minor: 4, kind: .uuidMajorMinor)
        var index: BeaconIndex = [:]
        #expect(index[key] == nil)
        index[key] = nil
        #expect(index.count == 0)
        let filled: BeaconIndex = [key: 7]
        #expect(filled[key] == 7)
        #expect(filled[BeaconIdentity(high: 1, low: 2, major: 3, minor: 4, kind: .eddystoneUID)] == nil)
    }
}
