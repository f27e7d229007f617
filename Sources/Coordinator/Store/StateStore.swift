import Foundation
import GRDB
import WireProtocol

/// Why the state store failed, naming its file.
public struct StateStoreError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String
    public var description: String { "state store \(path): \(reason)" }
}

/// Durable per-client state in SQLite (through GRDB, WAL journal): version, set, position and
/// last-seen time of every client, so a coordinator killed at any moment restarts with every
/// client's set and version.
///
/// The coordinator writes each batch of changes in one transaction *before* publishing the
/// `regions` messages they produced, so a published version is always on disk.
public final class StateStore: Sendable {
    public let path: String
    let database: DatabaseQueue
    private static let separator: Character = "\u{1F}"

    /// Opens (creating when needed) the store at `path`; `":memory:"` keeps it in memory.
    public init(path: String) throws(StateStoreError) {
        self.path = path
        do {
            var configuration = Configuration()
            configuration.journalMode = .wal
            configuration.prepareDatabase { db in
                // WAL + NORMAL: a committed transaction survives a process crash (kill -9); only a
                // power loss may lose the last few, and the retained messages cover those.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            database =
                path == ":memory:"
                ? try DatabaseQueue(configuration: configuration) : try DatabaseQueue(path: path, configuration: configuration)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.execute(
                    sql: """
                        CREATE TABLE client (
                            id TEXT PRIMARY KEY NOT NULL,
                            version INTEGER NOT NULL,
                            regions TEXT NOT NULL,
                            x REAL, y REAL, level TEXT, confidence REAL,
                            lastSeen INTEGER NOT NULL,
                            isPhone INTEGER NOT NULL,
                            beacon TEXT,
                            budget INTEGER NOT NULL
                        ) WITHOUT ROWID
                        """)
            }
            try migrator.migrate(database)
        } catch {
            throw StateStoreError(path: path, reason: "\(error)")
        }
    }

    /// Every stored client.
    public func loadClients() throws(StateStoreError) -> [StoredClient] {
        do {
            return try database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT id, version, regions, x, y, level, confidence, lastSeen, isPhone, beacon, budget FROM client"
                ).map { row in
                    let regionsText: String = row["regions"]
                    let regions =
                        regionsText.isEmpty
                        ? [] : regionsText.split(separator: StateStore.separator, omittingEmptySubsequences: false).map(String.init)
                    var position: Position?
                    if let x: Double = row["x"], let y: Double = row["y"], let level: String = row["level"] {
                        position = Position(x: x, y: y, level: level, confidence: row["confidence"])
                    }
                    let version: Int64 = row["version"]
                    return StoredClient(
                        id: row["id"], version: UInt64(bitPattern: version), regions: regions, position: position,
                        lastSeen: row["lastSeen"], isPhone: row["isPhone"], beacon: row["beacon"], budget: row["budget"])
                }
            }
        } catch {
            throw StateStoreError(path: path, reason: "reading clients: \(error)")
        }
    }

    /// Writes `changed` and deletes `removed` in one transaction.
    public func save(_ changed: [StoredClient], removing removed: [String] = []) throws(StateStoreError) {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        do {
            try database.write { db in
                let upsert = try db.cachedStatement(
                    sql: """
                        INSERT INTO client (id, version, regions, x, y, level, confidence, lastSeen, isPhone, beacon, budget)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET version = excluded.version, regions = excluded.regions, x = excluded.x,
                          y = excluded.y, level = excluded.level, confidence = excluded.confidence, lastSeen = excluded.lastSeen,
                          isPhone = excluded.isPhone, beacon = excluded.beacon, budget = excluded.budget
                        """)
                for client in changed {
                    try upsert.execute(arguments: [
                        client.id, Int64(bitPattern: client.version), client.regions.joined(separator: String(StateStore.separator)),
                        client.position?.x, client.position?.y, client.position?.level, client.position?.confidence,
                        client.lastSeen, client.isPhone, client.beacon, client.budget,
                    ])
                }
                if !removed.isEmpty {
                    let delete = try db.cachedStatement(sql: "DELETE FROM client WHERE id = ?")
                    for id in removed { try delete.execute(arguments: [id]) }
                }
            }
        } catch {
            throw StateStoreError(path: path, reason: "writing \(changed.count) clients: \(error)")
        }
    }

    /// The number of stored clients.
    public func count() throws(StateStoreError) -> Int {
        do {
            return try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM client") ?? 0 }
        } catch {
            throw StateStoreError(path: path, reason: "counting clients: \(error)")
        }
    }
}
