// ISO/IEC 14496-12 (2022) §8.6.6 Edit List Box ('elst') inside §8.6.5 Edit Box ('edts'): the track's presentation as
// segments of its media timeline. One edit starting at media_time with segment_duration 0 (in a fragmented file, the
// whole of the track, §8.6.6.3) presents the track from that media time on: the samples before it (an audio
// encoder's priming) are decoded but not played.

/// `elst`: the edits of a track, version 0 when every value fits 32 bits, else version 1.
public struct EditListBox: MP4Box, Equatable {
    /// One edit: `segmentDuration` in the movie timescale (0: to the end of the fragmented track), `mediaTime` in the
    /// track's timescale (-1: an empty edit), played at normal rate.
    public struct Entry: Sendable, Equatable {
        public var segmentDuration: UInt64
        public var mediaTime: Int64
    }

    public var entries: [Entry]

    /// media_rate_integer 1, media_rate_fraction 0: normal speed.
    static let normalRate: UInt32 = 0x0001_0000
    /// FullBox fields + entry_count.
    static let fixedPayloadSize = 8

    public var boxType: MP4FourCC { "elst" }

    /// A list of `entries`.
    public init(entries: [Entry]) { self.entries = entries }

    /// The one edit that starts the track's presentation at `mediaTime` (the track's timescale).
    public static func starting(atMediaTime mediaTime: Int64) -> EditListBox {
        EditListBox(entries: [Entry(segmentDuration: 0, mediaTime: mediaTime)])
    }

    /// Parses a version 0 or 1 payload.
    public init(parsing payload: ArraySlice<UInt8>) throws {
        var box = try MP4FullBoxPayload(payload)
        let count = try box.reader.readUInt32()
        // Each entry is at least 12 bytes: a count the payload cannot hold is refused before anything is reserved.
        guard Int(count) <= payload.count / 12 else {
            throw MediaFormatError.invalid(structure: "elst", reason: "entry_count \(count) for \(payload.count) bytes")
        }
        entries = try (0..<count).map { _ in
            let entry: Entry
            if box.version == 1 {
                entry = Entry(segmentDuration: try box.reader.readUInt64(), mediaTime: Int64(bitPattern: try box.reader.readUInt64()))
            } else {
                entry = Entry(segmentDuration: UInt64(try box.reader.readUInt32()),
                              mediaTime: Int64(Int32(bitPattern: try box.reader.readUInt32())))
            }
            _ = try box.reader.readUInt32()  // media_rate_integer, media_rate_fraction
            return entry
        }
    }

    /// Version 1 when a duration or media time does not fit 32 bits.
    var version: UInt8 {
        entries.allSatisfy { $0.segmentDuration <= UInt32.max && Int64(Int32.min)...Int64(Int32.max) ~= $0.mediaTime } ? 0 : 1
    }

    public var payloadSize: Int { Self.fixedPayloadSize + entries.count * (version == 1 ? 20 : 12) }

    public func writePayload(into out: inout [UInt8]) {
        let version = version
        MP4BoxHeader.writeFullBoxFields(version: version, flags: 0, into: &out)
        out.appendUInt32(UInt32(entries.count))
        for entry in entries {
            if version == 1 {
                out.appendUInt64(entry.segmentDuration)
                out.appendUInt64(UInt64(bitPattern: entry.mediaTime))
            } else {
                out.appendUInt32(UInt32(entry.segmentDuration))  // checked by `version`
                out.appendUInt32(UInt32(bitPattern: Int32(entry.mediaTime)))
            }
            out.appendUInt32(Self.normalRate)
        }
    }
}
