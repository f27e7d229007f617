public import Foundation

/// Where RegionSync keeps its ``RegionSyncState`` between launches.
public protocol RegionSyncStore: Sendable {
    /// The stored state; an empty state when nothing is stored.
    func load() throws(RegionSyncError) -> RegionSyncState
    /// Replaces the stored state.
    func save(_ state: RegionSyncState) throws(RegionSyncError)
}

/// A store that forgets everything with the process (tests, or an app that wants no file).
public final class InMemoryRegionSyncStore: RegionSyncStore, @unchecked Sendable {
    private let lock = NSLock()
    private var state: RegionSyncState

    public init(_ state: RegionSyncState = RegionSyncState()) {
        self.state = state
    }

    public func load() throws(RegionSyncError) -> RegionSyncState {
        lock.withLock { state }
    }

    public func save(_ state: RegionSyncState) throws(RegionSyncError) {
        lock.withLock { self.state = state }
    }
}

/// A store in one JSON file, written atomically (for an app: a file in Application Support).
public struct FileRegionSyncStore: RegionSyncStore {
    /// The file.
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    public func load() throws(RegionSyncError) -> RegionSyncState {
        guard FileManager.default.fileExists(atPath: url.path) else { return RegionSyncState() }
        do {
            return try JSONDecoder().decode(RegionSyncState.self, from: Data(contentsOf: url))
        } catch {
            throw .store("reading \(url.path): \(error)")
        }
    }

    public func save(_ state: RegionSyncState) throws(RegionSyncError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            try encoder.encode(state).write(to: url, options: .atomic)
        } catch {
            throw .store("writing \(url.path): \(error)")
        }
    }
}
