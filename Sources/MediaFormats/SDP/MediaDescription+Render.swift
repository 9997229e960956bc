// RFC 8866 §5 field order in a media section: m=, i=, c=, b=, k=, then a= lines (their order is free; these follow JSEP's, RFC 8829 §5.2.1).

extension MediaDescription {
    /// The section's lines: what `init(mediaLine:)` and `read(attribute:)` read back to an equal value.
    func render(into lines: inout SDPLines) {
        let formatText = carriesRTP ? payloadTypes.map { String($0) } : formats
        lines.field("m", ([media, String(port), transportProtocol] + formatText).joined(separator: " "))
        if let connection { lines.field("c", connection.value) }
        if let mid { lines.attribute("mid", mid) }
        if let direction { lines.flag(direction.rawValue) }
        transport.render(into: &lines)
        if bundleOnly { lines.flag("bundle-only") }
        for extensionMap in headerExtensions { lines.attribute("extmap", extensionMap.value) }
        for stream in mediaStreams { lines.attribute("msid", stream.value) }
        if rtcpMux { lines.flag("rtcp-mux") }
        if rtcpReducedSize { lines.flag("rtcp-rsize") }
        renderPayloadTypes(into: &lines)
        for group in ssrcGroups { lines.attribute("ssrc-group", group.value) }
        for attribute in ssrcAttributes { lines.attribute("ssrc", attribute.text) }
        if let control { lines.attribute("control", control) }
        for candidate in candidates { lines.attribute("candidate", candidate) }
        if endOfCandidates { lines.flag("end-of-candidates") }
    }

    /// rtpmap, rtcp-fb and fmtp of each payload type together, as browsers write them: "*" feedback first, then the
    /// m= line's types in order, then types it does not list (kept so nothing read is lost).
    private func renderPayloadTypes(into lines: inout SDPLines) {
        for feedback in rtcpFeedback where feedback.payloadType == nil { lines.attribute("rtcp-fb", feedback.value) }
        let listed = Set(payloadTypes)
        let unlisted = Set(rtpMaps.keys).union(formatParameters.keys).union(rtcpFeedback.compactMap(\.payloadType)).subtracting(listed)
        var written = Set<UInt8>()
        for type in payloadTypes + unlisted.sorted() where written.insert(type).inserted {
            if let map = rtpMaps[type] { lines.attribute("rtpmap", "\(type) \(map.value)") }
            for feedback in rtcpFeedback where feedback.payloadType == type { lines.attribute("rtcp-fb", feedback.value) }
            if let parameters = formatParameters[type] {
                // Sorted by name: the dictionary has no order, and the text must be the same on every run.
                let items = parameters.sorted { $0.key < $1.key }.map { $0.value.isEmpty ? $0.key : "\($0.key)=\($0.value)" }
                lines.attribute("fmtp", items.isEmpty ? String(type) : "\(type) \(items.joined(separator: ";"))")
            }
        }
    }
}
