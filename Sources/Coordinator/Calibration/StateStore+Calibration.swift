import Foundation
import GRDB
public import Planner

/// The latest self-calibration fit, so a restarted coordinator positions with it at once rather
/// than after its first refit. One row in an additive table (created when first used; older
/// stores simply lack it).
extension StateStore {
    private static let calibrationTable = """
        CREATE TABLE IF NOT EXISTS calibration (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            fitted INTEGER NOT NULL,
            fit TEXT NOT NULL
        )
        """

    /// Writes `fit`, made at `fitted` (milliseconds since 1970), replacing the previous one.
    public func saveCalibration(_ fit: RadioCalibration, fitted: Int64) throws(StateStoreError) {
        do {
            let text = String(decoding: try JSONEncoder().encode(fit), as: UTF8.self)
            try database.write { db in
                try db.execute(sql: Self.calibrationTable)
                try db.execute(
                    sql:
                        "INSERT INTO calibration (id, fitted, fit) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET fitted = excluded.fitted, fit = excluded.fit",
                    arguments: [fitted, text])
            }
        } catch {
            throw StateStoreError(path: path, reason: "writing the calibration: \(error)")
        }
    }

    /// The stored fit and when it was made, if any.
    public func loadCalibration() throws(StateStoreError) -> (fit: RadioCalibration, fitted: Int64)? {
        do {
            return try database.write { db -> (RadioCalibration, Int64)? in
                try db.execute(sql: Self.calibrationTable)
                guard let row = try Row.fetchOne(db, sql: "SELECT fitted, fit FROM calibration WHERE id = 1") else { return nil }
                let text: String = row["fit"]
                return (try JSONDecoder().decode(RadioCalibration.self, from: Data(text.utf8)), row["fitted"])
            }
        } catch {
            throw StateStoreError(path: path, reason: "reading the calibration: \(error)")
        }
    }

    private static let rangedTable = """
        CREATE TABLE IF NOT EXISTS ranged_radio (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            fitted INTEGER NOT NULL,
            fits TEXT NOT NULL
        )
        """

    /// Writes the region beacons' powers as phones ranged them (``Planner/RangedRadio``), fitted at
    /// `fitted` (milliseconds since 1970), replacing the previous ones.
    public func saveRangedRadio(_ fits: [RangedRadio.Fit], fitted: Int64) throws(StateStoreError) {
        do {
            let text = String(decoding: try JSONEncoder().encode(fits), as: UTF8.self)
            try database.write { db in
                try db.execute(sql: Self.rangedTable)
                try db.execute(
                    sql:
                        "INSERT INTO ranged_radio (id, fitted, fits) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET fitted = excluded.fitted, fits = excluded.fits",
                    arguments: [fitted, text])
            }
        } catch {
            throw StateStoreError(path: path, reason: "writing the ranged radio: \(error)")
        }
    }

    /// The stored powers phones ranged, if any.
    public func loadRangedRadio() throws(StateStoreError) -> [RangedRadio.Fit]? {
        do {
            return try database.write { db -> [RangedRadio.Fit]? in
                try db.execute(sql: Self.rangedTable)
                guard let row = try Row.fetchOne(db, sql: "SELECT fits FROM ranged_radio WHERE id = 1") else { return nil }
                let text: String = row["fits"]
                return try JSONDecoder().decode([RangedRadio.Fit].self, from: Data(text.utf8))
            }
        } catch {
            throw StateStoreError(path: path, reason: "reading the ranged radio: \(error)")
        }
    }
}
