import Foundation
import Synchronization

/// TCP ports on 127.0.0.1: finding a free one and checking whether one accepts connections.
enum LoopbackPort {
    /// Ports held by the brokers of this process that still exist. A stopped broker keeps its port
    /// for ``MosquittoBroker/restart()``, and the kernel reports that port free meanwhile: without
    /// this, a broker started during another's outage could take it, and the clients waiting for the
    /// first would connect to the second. (Process-wide because ports are.)
    private static let held = Mutex<Set<Int>>([])

    /// A free port no broker of this process holds, now held until ``release(_:)``.
    static func hold() throws(MosquittoBrokerError) -> Int {
        for _ in 0..<20 {
            let port = try free()
            if held.withLock({ $0.insert(port).inserted }) { return port }
        }
        throw .setupFailed("no free loopback port found")
    }

    /// Gives back a port taken with ``hold()``.
    static func release(_ port: Int) {
        _ = held.withLock { $0.remove(port) }
    }

    /// A port the kernel reports free right now (bind to port 0, read it back, close).
    static func free() throws(MosquittoBrokerError) -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .setupFailed("socket(): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw .setupFailed("bind(127.0.0.1:0): \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
