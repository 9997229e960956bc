// ITU-T H.265 (v8, 08/2021) §7.3.4 scaling_list_data(): read only to step over it on the way to the VUI.

/// scaling_list_data() of an SPS or PPS, skipped.
enum HEVCScalingListData {
    /// sizeId 0...3 (4×4 … 32×32).
    static let sizeCount = 4
    /// matrixId 0...5 (sizeId 3 uses 0 and 3).
    static let matrixCount = 6
    /// Coefficients coded per matrix: Min(64, 1 << (4 + (sizeId << 1))).
    static let maxCoefficients = 64

    /// Reads and discards one scaling_list_data().
    static func skip(_ reader: inout BitReader) throws {
        for sizeId in 0..<sizeCount {
            var matrixId = 0
            while matrixId < matrixCount {
                if try !reader.readFlag() {
                    _ = try reader.readUE()  // scaling_list_pred_matrix_id_delta
                } else {
                    if sizeId > 1 { _ = try reader.readSE() }  // scaling_list_dc_coef_minus8
                    for _ in 0..<min(maxCoefficients, 1 << (4 + (sizeId << 1))) { _ = try reader.readSE() }
                }
                matrixId += sizeId == 3 ? 3 : 1
            }
        }
    }
}
