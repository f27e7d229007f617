import Foundation
import GRDB
public import Planner

/// The latest self-calibration fit and the powers phones ranged, so a restarted coordinator
/// positions and plans with them at once rather than after its first refit. One row each in an
/// additive table (created when first used; older stores simply lack it).
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
        try saveFit(fit, fitted: fitted, table: Self.calibrationTable, name: "calibration", column: "fit", what: "the calibration")
    }

    /// The stored fit and when it was made, if any.
    public func loadCalibration() throws(StateStoreError) -> (fit: RadioCalibration, fitted: Int64)? {
        try loadFit(RadioCalibration.self, table: Self.calibrationTable, name: "calibration", column: "fit", what: "the calibration")
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
        try saveFit(fits, fitted: fitted, table: Self.rangedTable, name: "ranged_radio", column: "fits", what: "the ranged radio")
    }

    /// The stored powers phones ranged, if any.
    public func loadRangedRadio() throws(StateStoreError) -> [RangedRadio.Fit]? {
        try loadFit([RangedRadio.Fit].self, table: Self.rangedTable, name: "ranged_radio", column: "fits", what: "the ranged radio")?.fit
    }

    /// Writes `value` as JSON into the one row of table `name` (created by `table` when first used).
    private func saveFit(
        _ value: some Encodable, fitted: Int64, table: String, name: String, column: String, what: String
    ) throws(StateStoreError) {
        do {
            let text = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            try database.write { db in
                try db.execute(sql: table)
                try db.execute(
                    sql:
                        "INSERT INTO \(name) (id, fitted, \(column)) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET fitted = excluded.fitted, \(column) = excluded.\(column)",
                    arguments: [fitted, text])
            }
        } catch {
            throw StateStoreError(path: path, reason: "writing \(what): \(error)")
        }
    }

    /// The JSON value in the one row of table `name`, and when it was fitted, if any.
    private func loadFit<Value: Decodable>(
        _ type: Value.Type, table: String, name: String, column: String, what: String
    ) throws(StateStoreError) -> (fit: Value, fitted: Int64)? {
        do {
            return try database.write { db -> (Value, Int64)? in
                try db.execute(sql: table)
                guard let row = try Row.fetchOne(db, sql: "SELECT fitted, \(column) FROM \(name) WHERE id = 1") else { return nil }
                let text: String = row[column]
                return (try JSONDecoder().decode(Value.self, from: Data(text.utf8)), row["fitted"])
            }
        } catch {
            throw StateStoreError(path: path, reason: "reading \(what): \(error)")
        }
    }
}
