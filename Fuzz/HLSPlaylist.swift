// libFuzzer target: the HLS media playlist reader (RFC 8216bis §4), its printer, delta updates, the blocking reload
// decision (§6.2.5) and the sliding window fed with what was read. The input is a playlist, optionally followed by
// "FUZZ" and a request query string.
import MediaFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let parts = FuzzInput(data, size).parts
    let text = String(decoding: parts[0], as: UTF8.self)
    let query = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : "_HLS_msn=3&_HLS_part=1&_HLS_skip=YES"
    let directives = try? HLSDeliveryDirectives(query: query)
    if let directives, (try? HLSDeliveryDirectives(query: directives.query)) != directives {
        fatalError("directives \(directives) do not read back")
    }
    guard let playlist = try? HLSMediaPlaylist(parsing: text) else { return 0 }
    _ = try? playlist.validate()
    // What is printed reads back, and a second print is stable (the first may drop parts and precision).
    guard let second = try? HLSMediaPlaylist(parsing: playlist.render()) else { fatalError("printed playlist does not parse") }
    let secondText = second.render()
    guard let third = try? HLSMediaPlaylist(parsing: secondText), third.render() == secondText else {
        fatalError("playlist printing is not stable")
    }
    guard let delta = try? HLSMediaPlaylist(parsing: playlist.render(.deltaUpdate)),
          delta.nextMediaSequence == playlist.nextMediaSequence else {
        fatalError("delta update does not parse or loses segments")
    }
    if let directives { _ = HLSPlaylistResponse.deciding(directives, for: playlist) }
    replay(playlist)
    return 0
}

/// Feeds the segments that were read into a live window and checks its invariants after every accepted event.
private func replay(_ playlist: HLSMediaPlaylist) {
    let partTarget = playlist.partTarget.flatMap { $0 > 0 && $0 <= Double(playlist.targetDuration) ? $0 : nil }
    guard var window = try? HLSSlidingWindow(configuration: .init(
        mode: .live(window: 3), targetDuration: playlist.targetDuration, partTarget: partTarget, mapURI: "init.mp4",
        offersDeltaUpdates: true)) else { return }
    var appended = 0
    for segment in playlist.segments.prefix(200) {
        for part in segment.parts where partTarget != nil { _ = try? window.appendPart(part) }
        guard let update = try? window.appendSegment(segment) else { continue }
        appended += 1
        guard (try? update.playlist.validate()) != nil,
              update.playlist.mediaSequence + UInt64(update.playlist.segments.count) == UInt64(appended) else {
            fatalError("window broke its playlist after \(appended) segments")
        }
        _ = update.playlist.render(.deltaUpdate)
    }
    _ = window.finish()
}
