// RFC 4585 §4.2 the rtcp-fb attribute: a=rtcp-fb:<payload type | *> <type> [<parameters>]; RFC 5104 §7.1 "ccm fir".

/// One RTCP feedback message a receiver will send for a payload type: "nack", "nack pli", "ccm fir", "transport-cc".
public struct RTCPFeedbackAttribute: Sendable, Equatable {
    /// nil for "*", every payload type of the section.
    public var payloadType: UInt8?
    /// "nack", "ccm", "transport-cc", "goog-remb".
    public var type: String
    /// "pli" of "nack pli", "fir" of "ccm fir"; nil for the bare type.
    public var parameter: String?

    public init(payloadType: UInt8?, type: String, parameter: String? = nil) {
        self.payloadType = payloadType
        self.type = type
        self.parameter = parameter
    }

    init(parsing value: String, context: SDPLine) throws {
        let fields = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard fields.count >= 2 else { throw context.invalid("not <payload type> <feedback type>") }
        if fields[0] == "*" {
            payloadType = nil
        } else {
            guard let type = UInt8(fields[0]), type < 128 else { throw context.invalid("payload type \(fields[0]) is not 0...127 or *") }
            payloadType = type
        }
        type = String(fields[1])
        parameter = fields.count > 2 ? String(fields[2]).trimmingSpaces : nil
    }

    /// Whether this feedback applies to `payloadType`.
    public func applies(to payloadType: UInt8) -> Bool { self.payloadType == nil || self.payloadType == payloadType }

    /// What follows "a=rtcp-fb:".
    var value: String {
        ([payloadType.map { String($0) } ?? "*", type] + (parameter.map { [$0] } ?? [])).joined(separator: " ")
    }
}
