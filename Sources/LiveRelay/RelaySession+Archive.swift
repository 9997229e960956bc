import Foundation
import MediaJob
import NIOCore
import NIOPosix
import NIOSSL
import MediaFormats
import RTMP

/// FLV archives of a live job: what a file takes of the relayed messages.
extension RelaySession {
    /// An onMetaData body without the source's `duration` and `filesize`; any other data body as it is (also one
    /// that does not parse: it is the publisher's, and the archive keeps it).
    static func archivedMetadata(_ body: ArraySlice<UInt8>) -> [UInt8] {
        var reader = ByteReader(body)
        guard let name = try? AMF0Value(parsing: &reader), name == .string("onMetaData"),
              let value = try? AMF0Value(parsing: &reader), reader.isAtEnd else { return Array(body) }
        let dropped: Set<String> = ["duration", "filesize"]
        let kept: AMF0Value
        switch value {
        case let .ecmaArray(properties): kept = .ecmaArray(properties.filter { !dropped.contains($0.key) })
        case let .object(properties): kept = .object(properties.filter { !dropped.contains($0.key) })
        default: return Array(body)
        }
        var out: [UInt8] = []
        do {
            try name.write(into: &out)
            try kept.write(into: &out)
        } catch {
            return Array(body)
        }
        return out
    }
}
