// ITU-T H.265 (v8, 08/2021) §7.3.7 st_ref_pic_set(stRpsIdx) and §7.4.8 (7-61, 7-62): the short-term reference picture
// sets of an SPS. Parsed because the fields after them (long-term pictures, VUI) can only be reached through them;
// the delta POCs are derived because an inter-predicted set's length depends on the set it predicts from.

/// One short-term reference picture set: the POC deltas of its negative and positive pictures.
public struct HEVCShortTermReferencePictureSet: Hashable, Sendable {
    /// DeltaPocS0: negative POC deltas, closest first.
    public var negativeDeltas: [Int32]
    /// DeltaPocS1: positive POC deltas, closest first.
    public var positiveDeltas: [Int32]

    /// NumDeltaPocs.
    public var count: Int { negativeDeltas.count + positiveDeltas.count }

    /// num_short_term_ref_pic_sets is at most 64 (§7.4.3.2.1).
    public static let maxSetsInSPS = 64
    /// num_negative_pics / num_positive_pics are bounded by sps_max_dec_pic_buffering_minus1 (at most 15); 16 each.
    public static let maxPicturesPerDirection = 16

    private static let structure = "HEVC st_ref_pic_set"

    /// A set from its deltas.
    public init(negativeDeltas: [Int32], positiveDeltas: [Int32]) {
        self.negativeDeltas = negativeDeltas
        self.positiveDeltas = positiveDeltas
    }

    /// Reads set `index` of an SPS, whose earlier sets are `previous` (an SPS never carries delta_idx_minus1).
    init(parsing reader: inout BitReader, index: Int, previous: [HEVCShortTermReferencePictureSet]) throws {
        let interPrediction = index != 0 ? try reader.readFlag() : false
        guard interPrediction else {
            let negativeCount = Int(try reader.readUE())
            let positiveCount = Int(try reader.readUE())
            guard negativeCount <= Self.maxPicturesPerDirection, positiveCount <= Self.maxPicturesPerDirection else {
                throw MediaFormatError.invalid(
                    structure: Self.structure, reason: "\(negativeCount) negative and \(positiveCount) positive pictures")
            }
            var poc: Int32 = 0
            negativeDeltas = []
            for _ in 0..<negativeCount {
                // delta_poc_s0_minus1 (0...2^15 − 1 in a valid stream; saturate rather than trap on others).
                poc = poc &- Int32(truncatingIfNeeded: min(try reader.readUE(), 1 << 16)) &- 1
                _ = try reader.readFlag()  // used_by_curr_pic_s0_flag
                negativeDeltas.append(poc)
            }
            poc = 0
            positiveDeltas = []
            for _ in 0..<positiveCount {
                poc = poc &+ Int32(truncatingIfNeeded: min(try reader.readUE(), 1 << 16)) &+ 1
                _ = try reader.readFlag()  // used_by_curr_pic_s1_flag
                positiveDeltas.append(poc)
            }
            return
        }
        // RefRpsIdx = stRpsIdx − 1 in an SPS (delta_idx_minus1 is inferred 0).
        guard let reference = previous.last else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "inter prediction without a reference set")
        }
        let sign = try reader.readFlag()
        let magnitude = Int32(truncatingIfNeeded: min(try reader.readUE(), 1 << 16)) + 1
        let deltaRps = sign ? -magnitude : magnitude
        // used_by_curr_pic_flag[j], and use_delta_flag[j] when that is 0 (inferred 1 otherwise), j = 0...NumDeltaPocs.
        var useDelta: [Bool] = []
        for _ in 0...reference.count {
            let used = try reader.readFlag()
            useDelta.append(used ? true : try reader.readFlag())
        }
        let referenceNegatives = reference.negativeDeltas.count
        var negatives: [Int32] = []
        var positives: [Int32] = []
        // (7-61): the new negative pictures, closest first.
        for j in stride(from: reference.positiveDeltas.count - 1, through: 0, by: -1) {
            let delta = reference.positiveDeltas[j] + deltaRps
            if delta < 0 && useDelta[referenceNegatives + j] { negatives.append(delta) }
        }
        if deltaRps < 0 && useDelta[reference.count] { negatives.append(deltaRps) }
        for j in 0..<referenceNegatives {
            let delta = reference.negativeDeltas[j] + deltaRps
            if delta < 0 && useDelta[j] { negatives.append(delta) }
        }
        // (7-62): the new positive pictures, closest first.
        for j in stride(from: referenceNegatives - 1, through: 0, by: -1) {
            let delta = reference.negativeDeltas[j] + deltaRps
            if delta > 0 && useDelta[j] { positives.append(delta) }
        }
        if deltaRps > 0 && useDelta[reference.count] { positives.append(deltaRps) }
        for j in 0..<reference.positiveDeltas.count {
            let delta = reference.positiveDeltas[j] + deltaRps
            if delta > 0 && useDelta[referenceNegatives + j] { positives.append(delta) }
        }
        guard negatives.count <= Self.maxPicturesPerDirection, positives.count <= Self.maxPicturesPerDirection else {
            throw MediaFormatError.invalid(structure: Self.structure, reason: "predicted set of \(negatives.count + positives.count) pictures")
        }
        negativeDeltas = negatives
        positiveDeltas = positives
    }
}
