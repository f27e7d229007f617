import CBluetooth

#if canImport(Glibc)
    import Glibc
#endif

/// LE scan settings for a live adapter.
public struct ScanParameters: Sendable, Equatable {
    /// Active scanning sends scan requests (and hears scan responses); passive only listens.
    public var active: Bool
    /// Scan interval and window in units of 0.625 ms (0x0004…0x4000; window ≤ interval).
    public var interval: UInt16
    public var window: UInt16

    /// Passive, 100 ms interval, 100 ms window: listen all the time.
    public init(active: Bool = false, interval: UInt16 = 0x00A0, window: UInt16 = 0x00A0) {
        self.active = active
        self.interval = interval
        self.window = window
    }
}

/// A live Bluetooth adapter read through libbluetooth and a filtered raw HCI socket.
///
/// Opening it sets the LE scan parameters, turns duplicate filtering off and enables scanning;
/// ``close()`` disables scanning again, restores the socket's previous filter and, when the
/// adapter was already scanning for someone else (bluetoothd), turns that scan back on.
/// Every failure is an ``HCIAdapterError`` that names the cause and the remedy.
public final class HCIAdapterSource: HCIEventSource {
    public let name: String
    public private(set) var position: UInt64 = 0

    private let deviceID: Int32
    private var descriptor: Int32
    private var previousFilter = hci_filter()
    private var wasScanning = false
    private var buffer = [UInt8](repeating: 0, count: 1024)
    private var closed = false

    /// Opens `adapter` (`hciN`) and starts an LE scan with `parameters`.
    public init(adapter: String, parameters: ScanParameters = ScanParameters()) throws(HCIAdapterError) {
        name = adapter
        guard adapter.hasPrefix("hci"), let index = Int32(adapter.dropFirst(3)), index >= 0, index < 64 else {
            throw .invalidAdapterName(adapter)
        }
        // Probe the socket family first: without AF_BLUETOOTH every libbluetooth call fails the same way,
        // and this is the one case an operator cannot fix on the gateway itself.
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if probe < 0 { throw HCIAdapterError.classify(adapter: adapter, errno: errno, operation: "opening an HCI socket") }
        closeDescriptor(probe)

        var info = hci_dev_info()
        if hci_devinfo(index, &info) < 0 {
            throw HCIAdapterError.classify(adapter: adapter, errno: errno, operation: "reading the adapter's information")
        }
        if hci_test_bit(Int32(HCI_UP), &info.flags) == 0 {
            throw .adapterDown(adapter: adapter, errno: 100)
        }
        deviceID = index
        descriptor = hci_open_dev(index)
        if descriptor < 0 { throw HCIAdapterError.classify(adapter: adapter, errno: errno, operation: "opening the adapter") }

        do {
            try configure(parameters)
        } catch {
            hci_close_dev(descriptor)
            descriptor = -1
            throw error
        }
    }

    private func configure(_ parameters: ScanParameters) throws(HCIAdapterError) {
        let timeout: Int32 = 1000
        let type: UInt8 = parameters.active ? 0x01 : 0x00
        if hci_le_set_scan_parameters(descriptor, type, bf_htobs(parameters.interval), bf_htobs(parameters.window), 0x00, 0x00, timeout) < 0
        {
            let code = errno
            // EIO here usually means "Command Disallowed": the controller is already scanning (bluetoothd).
            // Stop that scan, remember to restore it, and try once more.
            guard code == EIO, hci_le_set_scan_enable(descriptor, 0x00, 0x00, timeout) >= 0 else {
                throw classify(code, "setting the LE scan parameters")
            }
            wasScanning = true
            if hci_le_set_scan_parameters(descriptor, type, bf_htobs(parameters.interval), bf_htobs(parameters.window), 0x00, 0x00, timeout)
                < 0
            {
                throw classify(errno, "setting the LE scan parameters")
            }
        }
        // Duplicate filtering off: every advertisement is a sample of the RSSI.
        if hci_le_set_scan_enable(descriptor, 0x01, 0x00, timeout) < 0 {
            throw classify(errno, "enabling the LE scan")
        }

        var length = socklen_t(MemoryLayout<hci_filter>.size)
        if getsockopt(descriptor, SOL_HCI, HCI_FILTER, &previousFilter, &length) < 0 {
            throw classify(errno, "reading the HCI socket filter")
        }
        var filter = hci_filter()
        bf_hci_filter_clear(&filter)
        bf_hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
        bf_hci_filter_set_event(EVT_LE_META_EVENT, &filter)
        if setsockopt(descriptor, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) < 0 {
            throw classify(errno, "setting the HCI socket filter")
        }
    }

    private func classify(_ code: Int32, _ operation: String) -> HCIAdapterError {
        HCIAdapterError.classify(adapter: name, errno: code, operation: operation)
    }

    public func read(timeout: Double, _ body: (Int64, UnsafeRawBufferPointer) -> Void) throws -> HCIReadStatus {
        guard descriptor >= 0 else { return .end }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(0, timeout * 1000)))
        if ready < 0 {
            if errno == EINTR { return .idle(now: Self.nowMicros()) }
            throw HCIAdapterError.readFailed(adapter: name, errno: errno)
        }
        if ready == 0 { return .idle(now: Self.nowMicros()) }
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return .idle(now: Self.nowMicros()) }
            let code = errno
            throw code == ENETDOWN
                ? HCIAdapterError.adapterDown(adapter: name, errno: code) : HCIAdapterError.readFailed(adapter: name, errno: code)
        }
        position += 1
        let now = Self.nowMicros()
        buffer.withUnsafeBytes { body(now, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        return .packet
    }

    public func close() {
        guard !closed, descriptor >= 0 else { return }
        closed = true
        _ = hci_le_set_scan_enable(descriptor, 0x00, 0x00, 1000)
        _ = setsockopt(descriptor, SOL_HCI, HCI_FILTER, &previousFilter, socklen_t(MemoryLayout<hci_filter>.size))
        if wasScanning { _ = hci_le_set_scan_enable(descriptor, 0x01, 0x01, 1000) }
        hci_close_dev(descriptor)
        descriptor = -1
    }

    deinit { close() }

    static func nowMicros() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }
}

@inline(__always) private func closeDescriptor(_ fd: Int32) { _ = Glibc.close(fd) }
