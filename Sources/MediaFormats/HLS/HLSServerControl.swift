// RFC 8216bis §4.4.3.8 EXT-X-SERVER-CONTROL: which Delivery Directives (§6.2.5) the server honours, and how far
// behind the live edge clients should play.

/// `#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,PART-HOLD-BACK=1.500`.
public struct HLSServerControl: Sendable, Equatable {
    /// CAN-BLOCK-RELOAD=YES: the server holds `_HLS_msn`/`_HLS_part` requests until the playlist has them.
    public var canBlockReload: Bool
    /// CAN-SKIP-UNTIL, the Skip Boundary in seconds: the server answers `_HLS_skip=YES` with a delta update.
    public var canSkipUntil: Double?
    /// CAN-SKIP-DATERANGES=YES: delta updates may also skip old EXT-X-DATERANGE tags.
    public var canSkipDateRanges: Bool
    /// HOLD-BACK: the recommended distance from the live edge, in seconds (absent means 3 × target duration).
    public var holdBack: Double?
    /// PART-HOLD-BACK: the same in Low-Latency mode; required when the playlist has EXT-X-PART-INF.
    public var partHoldBack: Double?

    /// The tag name.
    public static let tag = "EXT-X-SERVER-CONTROL"
    /// §4.4.3.8: the Skip Boundary MUST be at least six target durations.
    public static let minimumSkipBoundaryInTargetDurations = 6.0
    /// §4.4.3.8: HOLD-BACK MUST be at least three target durations.
    public static let minimumHoldBackInTargetDurations = 3.0
    /// §4.4.3.8: PART-HOLD-BACK MUST be at least twice and SHOULD be three times the part target; three is
    /// enforced, since a client holding back only two parts stalls whenever a part is late.
    public static let minimumPartHoldBackInPartTargets = 3.0
    /// Slack for comparing seconds that went through floating-point arithmetic.
    static let tolerance = 1e-9

    /// Server control from its fields.
    public init(canBlockReload: Bool = false, canSkipUntil: Double? = nil, canSkipDateRanges: Bool = false,
                holdBack: Double? = nil, partHoldBack: Double? = nil) {
        self.canBlockReload = canBlockReload
        self.canSkipUntil = canSkipUntil
        self.canSkipDateRanges = canSkipDateRanges
        self.holdBack = holdBack
        self.partHoldBack = partHoldBack
    }

    /// The attributes; seconds are rounded up to milliseconds, so a bound that holds still holds once printed.
    public var attributes: HLSAttributeList {
        func seconds(_ value: Double?) -> HLSAttributeList.Value? {
            value.map { .decimal(HLSNumber.roundedUp($0, fractionDigits: HLSNumber.secondsFractionDigits),
                                 fractionDigits: HLSNumber.secondsFractionDigits) }
        }
        var list = HLSAttributeList()
        list.appendFlag("CAN-BLOCK-RELOAD", canBlockReload)
        list.append("CAN-SKIP-UNTIL", seconds(canSkipUntil))
        list.appendFlag("CAN-SKIP-DATERANGES", canSkipDateRanges && canSkipUntil != nil)
        list.append("HOLD-BACK", seconds(holdBack))
        list.append("PART-HOLD-BACK", seconds(partHoldBack))
        return list
    }

    /// Reads the attributes of an EXT-X-SERVER-CONTROL tag.
    public init(attributes: HLSAttributeList) throws {
        canBlockReload = try attributes.flag("CAN-BLOCK-RELOAD", tag: Self.tag)
        canSkipUntil = try attributes.decimal("CAN-SKIP-UNTIL", tag: Self.tag)
        canSkipDateRanges = try attributes.flag("CAN-SKIP-DATERANGES", tag: Self.tag)
        holdBack = try attributes.decimal("HOLD-BACK", tag: Self.tag)
        partHoldBack = try attributes.decimal("PART-HOLD-BACK", tag: Self.tag)
    }

    /// Checks the bounds §4.4.3.8 puts on the values against the playlist's target duration and PART-TARGET.
    public func validate(targetDuration: Int, partTarget: Double?) throws {
        let target = Double(targetDuration)
        if let canSkipUntil, canSkipUntil + Self.tolerance < Self.minimumSkipBoundaryInTargetDurations * target {
            throw Self.invalid("CAN-SKIP-UNTIL \(canSkipUntil) is less than six target durations (\(6 * targetDuration) s)")
        }
        if let holdBack, holdBack + Self.tolerance < Self.minimumHoldBackInTargetDurations * target {
            throw Self.invalid("HOLD-BACK \(holdBack) is less than three target durations (\(3 * targetDuration) s)")
        }
        if let partTarget {
            guard let partHoldBack else { throw Self.invalid("PART-HOLD-BACK is required with EXT-X-PART-INF") }
            if partHoldBack + Self.tolerance < Self.minimumPartHoldBackInPartTargets * partTarget {
                throw Self.invalid("PART-HOLD-BACK \(partHoldBack) is less than three part targets (\(3 * partTarget) s)")
            }
        }
    }

    private static func invalid(_ reason: String) -> MediaFormatError { .invalid(structure: tag, reason: reason) }
}
