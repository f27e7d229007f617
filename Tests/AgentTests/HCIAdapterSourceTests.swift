import Testing

@testable import Agent

/// The live adapter's failures: every one names the adapter and the remedy.
@Suite struct HCIAdapterSourceTests {
    @Test func openingAnAdapterHereFailsWithTheCauseAndTheRemedy() throws {
        // These machines have no AF_BLUETOOTH; a machine with Bluetooth but no hci63 gets "no such adapter".
        do {
            _ = try HCIAdapterSource(adapter: "hci63")
            Issue.record("hci63 should not open")
        } catch {
            switch error {
            case .noBluetoothInKernel, .adapterNotFound, .permissionDenied, .adapterDown:
                #expect(error.description.contains("hci63"))
                #expect(error.description.contains("Remedy"))
            default:
                Issue.record("unexpected error: \(error)")
            }
        }
    }

    @Test func aBadAdapterNameIsRejectedBeforeTouchingTheKernel() {
        #expect(throws: HCIAdapterError.invalidAdapterName("bt0")) { try HCIAdapterSource(adapter: "bt0") }
    }

    @Test func errnoValuesMapToTheirCauses() {
        #expect(HCIAdapterError.classify(adapter: "hci0", errno: 97, operation: "x") == .noBluetoothInKernel(adapter: "hci0", errno: 97))
        #expect(HCIAdapterError.classify(adapter: "hci0", errno: 19, operation: "x") == .adapterNotFound(adapter: "hci0", errno: 19))
        #expect(HCIAdapterError.classify(adapter: "hci0", errno: 100, operation: "x") == .adapterDown(adapter: "hci0", errno: 100))
        #expect(HCIAdapterError.classify(adapter: "hci0", errno: 1, operation: "x") == .permissionDenied(adapter: "hci0", errno: 1))
        #expect(HCIAdapterError.classify(adapter: "hci0", errno: 132, operation: "x") == .adapterBlocked(adapter: "hci0", errno: 132))
        #expect(HCIAdapterError.permissionDenied(adapter: "hci0", errno: 1).description.contains("cap_net_raw,cap_net_admin"))
    }
}
