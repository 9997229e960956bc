// The worker's Low-Latency HLS origin: GET /hls/JOB/OUTPUT/FILE serves the live HLS outputs of its running jobs.
// Handlers run on Swift's cooperative pool and wait on the LivePlaylistRegistry (a parked continuation per blocked
// request, resumed by the sink's next publish); files are read through Hummingbird's FileIO on NIO's thread pool.
import Foundation
import Hummingbird
import MediaFormats
import MediaJob
import NIOCore

/// `/hls/JOB/OUTPUT/index.m3u8` (with `_HLS_msn`, `_HLS_part`, `_HLS_skip`) and the output's init segment, segments
/// and parts next to it. OUTPUT is the output's index in the job's `outputs`.
struct LiveHLSRoutes: Sendable {
    let registry: LivePlaylistRegistry
    private let files = FileIO()

    init(registry: LivePlaylistRegistry) {
        self.registry = registry
    }

    static let path = "/hls/:job/:output/:file"
    /// A job's multivariant playlist (`hls_multivariant`), its variants listed at `OUTPUT/PLAYLIST` beside it. The
    /// second component is the file's name here; the router takes one parameter name per position.
    static let multivariantPath = "/hls/:job/:output"

    func add(to router: Router<BasicRequestContext>) {
        router.get(RouterPath(stringLiteral: Self.path)) { request, context in
            try await respond(request, context: context)
        }
        router.get(RouterPath(stringLiteral: Self.multivariantPath)) { _, context in
            guard let job = context.parameters.get("job"), let file = context.parameters.get("output"),
                  let resource = LiveHLSResource(name: file), resource.kind == .playlist,
                  let text = registry.multivariant(jobID: job, name: resource.name) else {
                return Self.text(.notFound, "no running job has a multivariant playlist here\n")
            }
            return Self.response(.ok, bytes: Array(text.utf8), type: resource.contentType,
                                 cache: LiveHLSResource.cacheControl(.playlist))
        }
    }

    private func respond(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let job = context.parameters.get("job"), let outputText = context.parameters.get("output"),
              let output = Int(outputText), output >= 0, let file = context.parameters.get("file"),
              let resource = LiveHLSResource(name: file) else {
            return Self.text(.notFound, "no such live HLS file\n")
        }
        let key = LivePlaylistKey(jobID: job, output: output)
        guard resource.kind == .playlist else { return try await serveFile(resource, key: key, context: context) }
        guard registry.current(key)?.playlistName == resource.name else {
            return Self.text(.notFound, "no running job has a live HLS output here\n")
        }
        let directives: HLSDeliveryDirectives
        do {
            directives = try HLSDeliveryDirectives(query: request.uri.query ?? "")
        } catch {
            return Self.text(.badRequest, "\(error)\n")
        }
        switch await registry.playlist(for: key, directives: directives) {
        case let .playlist(state, form):
            let text = state.playlist.render(form)
            let cache = LiveHLSResource.cacheControl(.playlist, directives: directives, targetDuration: state.playlist.targetDuration)
            return Self.response(.ok, bytes: Array(text.utf8), type: resource.contentType, cache: cache)
        case let .badRequest(reason):
            return Self.text(.badRequest, reason + "\n")
        case .timedOut:
            // RFC 8216bis §6.2.5.2: a part that does not come within three target durations is Service Unavailable.
            return Self.text(.serviceUnavailable, "the playlist did not reach the requested part in time\n")
        case .notFound:
            return Self.text(.notFound, "no running job has a live HLS output here\n")
        }
    }

    /// A segment, part or init segment, read from the output's folder; the hinted next part waits for its bytes.
    private func serveFile(_ resource: LiveHLSResource, key: LivePlaylistKey, context: BasicRequestContext) async throws -> Response {
        guard let state = await registry.resource(named: resource.name, for: key) else {
            return Self.text(.notFound, "no such live HLS file\n")
        }
        let path = state.folder + "/" + resource.name
        // lstat: a regular file of the folder itself, never a link out of it.
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = attributes[.size] as? NSNumber else {
            return Self.text(.notFound, "no such live HLS file\n")
        }
        let body: ResponseBody
        do {
            body = try await files.loadFile(path: path, context: context)
        } catch {
            // Removed from the window between the check and the read.
            return Self.text(.notFound, "no such live HLS file\n")
        }
        var headers: HTTPFields = [.contentType: resource.contentType,
                                   .cacheControl: LiveHLSResource.cacheControl(resource.kind)]
        headers[.contentLength] = size.stringValue
        return Response(status: .ok, headers: headers, body: body)
    }

    private static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        response(status, bytes: Array(text.utf8), type: "text/plain; charset=utf-8", cache: "no-store")
    }

    private static func response(_ status: HTTPResponse.Status, bytes: [UInt8], type: String, cache: String) -> Response {
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return Response(status: status, headers: [.contentType: type, .cacheControl: cache], body: .init(byteBuffer: buffer))
    }
}
