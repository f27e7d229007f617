/// Why the live Bluetooth adapter could not be used, with the remedy an operator needs.
///
/// Every case carries the adapter's name and the `errno` the kernel returned, and its
/// ``description`` says both what went wrong and what to do about it.
public enum HCIAdapterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kernel has no Bluetooth socket family (`EAFNOSUPPORT`): no `bluetooth` module, or a
    /// container without access to it.
    case noBluetoothInKernel(adapter: String, errno: Int32)
    /// No adapter of that name (`ENODEV`).
    case adapterNotFound(adapter: String, errno: Int32)
    /// The adapter exists but is down (`ENETDOWN`).
    case adapterDown(adapter: String, errno: Int32)
    /// The adapter is blocked by rfkill (`ERFKILL`).
    case adapterBlocked(adapter: String, errno: Int32)
    /// Opening a raw HCI socket or issuing commands needs root or `CAP_NET_RAW` and `CAP_NET_ADMIN`.
    case permissionDenied(adapter: String, errno: Int32)
    /// The adapter name is not `hciN`.
    case invalidAdapterName(String)
    /// A command the controller refused or did not answer (`operation` names it).
    case commandFailed(adapter: String, operation: String, errno: Int32)
    /// Reading events from the adapter's socket failed.
    case readFailed(adapter: String, errno: Int32)

    public var description: String {
        switch self {
        case .noBluetoothInKernel(let adapter, let errno):
            return
                "cannot open \(adapter): this kernel has no Bluetooth support (socket family AF_BLUETOOTH is unavailable, \(Self.errnoText(errno))). "
                + "Remedy: run the agent on a host whose kernel has Bluetooth (`sudo modprobe bluetooth btusb`; on a Raspberry Pi the stock Raspberry Pi OS kernel has it); "
                + "a container needs --net=host and the host's Bluetooth. Without a radio, use --replay FILE to replay a capture."
        case .adapterNotFound(let adapter, let errno):
            return "cannot open \(adapter): no such Bluetooth adapter (\(Self.errnoText(errno))). "
                + "Remedy: list adapters with `hciconfig -a` or `bluetoothctl list`, check that the dongle is plugged in (`lsusb`, `dmesg | grep -i bluetooth`), and pass the right --adapter hciN."
        case .adapterDown(let adapter, let errno):
            return "cannot scan on \(adapter): the adapter is down (\(Self.errnoText(errno))). "
                + "Remedy: `sudo hciconfig \(adapter) up` or `bluetoothctl power on`, and check `rfkill list`."
        case .adapterBlocked(let adapter, let errno):
            return
                "cannot scan on \(adapter): the adapter is blocked by rfkill (\(Self.errnoText(errno))). Remedy: `sudo rfkill unblock bluetooth`, then `sudo hciconfig \(adapter) up`."
        case .permissionDenied(let adapter, let errno):
            return
                "cannot open \(adapter): permission denied (\(Self.errnoText(errno))); raw HCI access needs root or the capabilities cap_net_raw and cap_net_admin. "
                + "Remedy: run under the systemd unit (deploy/beaconfleet-agent.service grants them), or `sudo setcap cap_net_raw,cap_net_admin+eip $(command -v beaconfleet)`."
        case .invalidAdapterName(let name):
            return "invalid adapter name \"\(name.prefix(40))\": expected hciN, for example hci0 (see `hciconfig -a`)"
        case .commandFailed(let adapter, let operation, let errno):
            return "\(adapter): \(operation) failed (\(Self.errnoText(errno))). "
                + "Remedy: check that no other program holds the adapter in a conflicting scan (`sudo btmgmt info`), or reset it with `sudo hciconfig \(adapter) reset`."
        case .readFailed(let adapter, let errno):
            return "\(adapter): reading HCI events failed (\(Self.errnoText(errno))); the adapter may have been unplugged or reset."
        }
    }

    /// Classifies an `errno` from opening the socket or the device.
    static func classify(adapter: String, errno code: Int32, operation: String) -> HCIAdapterError {
        switch code {
        case 97: return .noBluetoothInKernel(adapter: adapter, errno: code)  // EAFNOSUPPORT
        case 19: return .adapterNotFound(adapter: adapter, errno: code)  // ENODEV
        case 100: return .adapterDown(adapter: adapter, errno: code)  // ENETDOWN
        case 132: return .adapterBlocked(adapter: adapter, errno: code)  // ERFKILL
        case 1, 13: return .permissionDenied(adapter: adapter, errno: code)  // EPERM, EACCES
        default: return .commandFailed(adapter: adapter, operation: operation, errno: code)
        }
    }

    static func errnoText(_ code: Int32) -> String {
        let name: String
        switch code {
        case 1: name = "EPERM"
        case 5: name = "EIO"
        case 13: name = "EACCES"
        case 16: name = "EBUSY"
        case 19: name = "ENODEV"
        case 97: name = "EAFNOSUPPORT"
        case 100: name = "ENETDOWN"
        case 110: name = "ETIMEDOUT"
        case 132: name = "ERFKILL"
        default: name = "errno"
        }
        return "\(name) \(code)"
    }
}
