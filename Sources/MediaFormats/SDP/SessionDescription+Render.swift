// RFC 8866 §5 field order: v=, o=, s=, i=, u=, e=, p=, c=, b=, t=, r=, z=, a=, then each media section.

extension SessionDescription {
    /// The description as SDP text with CRLF line ends; `init(parsing:)` reads it back to an equal value. Fields this
    /// type does not keep (i=, b=, t= times) are not written, except `t=0 0`, which §5.9 requires and WebRTC always sends.
    public func render() -> String {
        var lines = SDPLines()
        lines.field("v", "0")
        if let origin { lines.field("o", origin.value) }
        lines.field("s", sessionName ?? "-")
        if let connection { lines.field("c", connection.value) }
        lines.field("t", "0 0")
        if iceLite { lines.flag("ice-lite") }
        for group in groups { lines.attribute("group", group.value) }
        if let control { lines.attribute("control", control) }
        transport.render(into: &lines)
        if let direction { lines.flag(direction.rawValue) }
        for extensionMap in headerExtensions { lines.attribute("extmap", extensionMap.value) }
        if endOfCandidates { lines.flag("end-of-candidates") }
        for section in media { section.render(into: &lines) }
        return lines.text
    }
}
