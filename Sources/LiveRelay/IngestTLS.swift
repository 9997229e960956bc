// rtmps:// ingest: TLS terminated on the shared listener, ahead of the same `IngestHandler` plain ports use.
// Concurrency: the handlers run on their channel's event loop; the registry's counter is atomic.
import NIOCore
import NIOSSL
import Synchronization

extension IngestRegistry {
    /// Puts TLS under the worker's certificate in front of a new rtmps:// ingest connection. The certificate
    /// files are checked for a renewal here, so a renewed certificate is served from the next connection on.
    func addTLS(to channel: any Channel) throws {
        let context = try certificate.context().get()
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(NIOSSLServerHandler(context: context))
        try operations.addHandler(TLSHandshakeWatch(registry: self))
    }

    /// TLS handshakes failed on rtmps:// listeners since the engine started.
    var failedTLSHandshakes: Int { tlsHandshakeFailures.load(ordering: .relaxed) }
}

/// Counts a failed TLS handshake (a plain RTMP client on the TLS port, a client that does not trust us) instead
/// of logging it: anyone can cause one, so a log line each would let them fill the log. It leaves the
/// pipeline with the first decrypted bytes; the connection itself is closed by `NIOSSLServerHandler`.
final class TLSHandshakeWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let registry: IngestRegistry

    init(registry: IngestRegistry) { self.registry = registry }

    /// Decrypted bytes: the handshake is over, so the watch leaves.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case NIOSSLError.handshakeFailed = error {
            registry.tlsHandshakeFailures.add(1, ordering: .relaxed)
        }
        context.fireErrorCaught(error)
    }
}
