/// `gateways.csv`'s optional calibration columns: `rssi_offset` (dB, ±20) and
/// `path_loss_exponent` (1.5–4.5), the same bounds the self-calibration keeps to. A declared value
/// is fixed: the coordinator's fit does not override it.
extension LoadContext {
    /// The bounds of a declared offset and exponent.
    static let gatewayOffsetLimit = 20.0
    static let gatewayExponentRange = 1.5...4.5

    mutating func gatewayCalibration(_ row: CSVRecord, _ columns: [String: Int], file: String, failed: inout Bool) -> (
        offset: Double?, exponent: Double?
    ) {
        var offset = number(row, columns["rssi_offset"], file: file, field: "rssi_offset", failed: &failed)
        var exponent = number(row, columns["path_loss_exponent"], file: file, field: "path_loss_exponent", failed: &failed)
        if let value = offset, !(abs(value) <= Self.gatewayOffsetLimit) {
            error(file, row.line, "rssi_offset: \(value) is outside ±\(Int(Self.gatewayOffsetLimit)) dB")
            failed = true
            offset = nil
        }
        if let value = exponent, !Self.gatewayExponentRange.contains(value) {
            error(
                file, row.line,
                "path_loss_exponent: \(value) is outside \(Self.gatewayExponentRange.lowerBound)–\(Self.gatewayExponentRange.upperBound)")
            failed = true
            exponent = nil
        }
        return (offset, exponent)
    }
}
