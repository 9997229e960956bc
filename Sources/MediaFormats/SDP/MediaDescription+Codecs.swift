// RFC 6184 §8.1 (sprop-parameter-sets), RFC 7798 §7.1 (sprop-vps, sprop-sps, sprop-pps), RFC 3640 §4.1 (mpeg4-generic).

extension MediaDescription {
    /// H.264 parameter sets from `sprop-parameter-sets` (comma-separated base 64 NAL units), split by type; empty
    /// lists when the parameter is absent (the camera sends them in band).
    public func h264ParameterSets(payloadType: UInt8) throws -> (sps: [[UInt8]], pps: [[UInt8]]) {
        let nalUnits = try Self.nalUnits(formatParameters[payloadType]?["sprop-parameter-sets"], name: "sprop-parameter-sets")
        var sps: [[UInt8]] = []
        var pps: [[UInt8]] = []
        for nalUnit in nalUnits {
            switch NALUnitHeader(nalUnit[0]).nalUnitType {
            case .sequenceParameterSet: sps.append(nalUnit)
            case .pictureParameterSet: pps.append(nalUnit)
            default: continue
            }
        }
        return (sps, pps)
    }

    /// H.265 parameter sets from `sprop-vps`, `sprop-sps` and `sprop-pps`; empty lists for those absent.
    public func hevcParameterSets(payloadType: UInt8) throws -> (vps: [[UInt8]], sps: [[UInt8]], pps: [[UInt8]]) {
        try Self.hevcParameterSets(formatParameters[payloadType] ?? [:])
    }

    /// H.265 parameter sets from one payload type's fmtp parameters (a negotiated WebRTC track keeps them so).
    public static func hevcParameterSets(_ parameters: [String: String]) throws -> (vps: [[UInt8]], sps: [[UInt8]], pps: [[UInt8]]) {
        (try nalUnits(parameters["sprop-vps"], name: "sprop-vps"), try nalUnits(parameters["sprop-sps"], name: "sprop-sps"),
         try nalUnits(parameters["sprop-pps"], name: "sprop-pps"))
    }

    /// The mpeg4-generic parameters of an AAC payload type (mode, AU header lengths, AudioSpecificConfig).
    public func mpeg4GenericParameters(payloadType: UInt8) throws -> MPEG4GenericParameters {
        guard let parameters = formatParameters[payloadType] else {
            throw MediaFormatError.invalid(structure: "SDP", reason: "no a=fmtp for mpeg4-generic payload type \(payloadType)")
        }
        return try MPEG4GenericParameters(parameters: parameters)
    }

    /// Comma-separated base 64 NAL units; an empty or undecodable one throws naming the parameter.
    private static func nalUnits(_ value: String?, name: String) throws -> [[UInt8]] {
        guard let value, !value.isEmpty else { return [] }
        return try value.split(separator: ",", omittingEmptySubsequences: false).map { text in
            guard let bytes = Base64.decode(String(text).trimmingSpaces), !bytes.isEmpty else {
                throw MediaFormatError.invalid(structure: "SDP", reason: "\(name) holds \"\(text)\", not a base 64 NAL unit")
            }
            return bytes
        }
    }
}
