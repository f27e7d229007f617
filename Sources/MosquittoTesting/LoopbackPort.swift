import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// TCP ports on 127.0.0.1 for servers started by tests and the demo: reserving a free one, and
/// checking whether one accepts connections.
///
/// A port from ``hold()`` is reserved *by the kernel* until ``release(_:)``: a socket bound to it with
/// `SO_REUSEADDR`, never listening, stays open meanwhile. A server that binds with `SO_REUSEADDR` too
/// (mosquitto, the coordinator's HTTP server) can still listen on it, and connections go to that
/// server; when the server stops, connections are refused as they should be, but no other socket
/// of any process can take the port (nor can `bind(0)` or an outgoing connection be given it). A
/// broker stopped for an outage test therefore gets its port back on restart, and the clients
/// waiting for it cannot reach anything else in the meantime. Without the reservation they did: a
/// stopped broker's port is free as far as the kernel knows, and in one CI run the bounded-queue
/// test's client, waiting through its broker's outage, connected to another server on that port.
public enum LoopbackPort {
    /// The reserving sockets, by port.
    private static let held = Mutex<[Int: Int32]>([:])

    /// A free port, reserved until ``release(_:)``.
    public static func hold() throws(MosquittoBrokerError) -> Int {
        // Close-on-exec: a child process (the broker, its watchdog) must not keep the reservation.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .setupFailed("socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .setupFailed("bind(127.0.0.1:0): \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        held.withLock { $0[port] = descriptor }
        return port
    }

    /// Ends the reservation of a port from ``hold()``.
    public static func release(_ port: Int) {
        if let descriptor = held.withLock({ $0.removeValue(forKey: port) }) { close(descriptor) }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int) -> Bool {
        guard let descriptor = connect(port) else { return false }
        close(descriptor)
        return true
    }

    /// A TCP socket connected to 127.0.0.1:`port` (the caller closes it), `nil` when the connection failed.
    public static func connect(_ port: Int) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
