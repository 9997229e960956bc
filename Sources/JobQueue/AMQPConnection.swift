import CRabbitMQ
#if canImport(Glibc)
import Glibc
#endif

/// Properties of an outgoing message.
struct OutgoingMessage: Sendable {
    var exchange: String
    var routingKey: String
    var body: [UInt8]
    var priority: UInt8?
    /// Per-message TTL in milliseconds (the retry backoff).
    var expirationMilliseconds: Int64?
    var headers: [String: String] = [:]
    var contentType = "application/json"
}

/// Owns one librabbitmq connection (`amqp_connection_state_t`) and its two channels: 1 consumes and acks,
/// 2 publishes in confirm mode (so a failed publish cannot close the channel that holds unacked deliveries).
/// Not thread-safe, like librabbitmq itself: only the BrokerConnection owner thread touches it.
final class AMQPConnection {
    static let consumeChannel: amqp_channel_t = 1
    static let publishChannel: amqp_channel_t = 2
    /// Channels from here on each carry one job's lease (see `JobLease`).
    static let firstLeaseChannel: amqp_channel_t = 3

    let state: amqp_connection_state_t
    /// Logged in and not known broken: only then does deinit say goodbye politely (close/close-ok).
    private var isHealthy = false

    /// Opens the socket (TCP or TLS), logs in, opens both channels and enables publisher confirms.
    /// - Parameter configuration: the broker to reach and the timeouts to use.
    init(configuration: BrokerConfiguration) throws(AMQPError) {
        guard let state = amqp_new_connection() else {
            throw .library(function: "amqp_new_connection", status: AMQP_STATUS_NO_MEMORY.rawValue,
                           message: "out of memory")
        }
        self.state = state
        // From here on, deinit destroys `state` (and the socket it owns) if a later step throws.
        let url = configuration.url
        let socket: OpaquePointer?
        if url.isTLS {
            socket = amqp_ssl_socket_new(state)
            guard let socket else {
                throw .library(function: "amqp_ssl_socket_new", status: AMQP_STATUS_SSL_ERROR.rawValue,
                               message: "could not create a TLS socket")
            }
            amqp_ssl_socket_set_verify_peer(socket, 1)
            amqp_ssl_socket_set_verify_hostname(socket, 1)
            // librabbitmq 0.11 loads no default trust store: without a CA file every peer fails verification.
            let caPath = configuration.caCertPath ?? "/etc/ssl/certs/ca-certificates.crt"
            try AMQPCheck.status(amqp_ssl_socket_set_cacert(socket, caPath), "amqp_ssl_socket_set_cacert")
        } else {
            socket = amqp_tcp_socket_new(state)
            guard socket != nil else {
                throw .library(function: "amqp_tcp_socket_new", status: AMQP_STATUS_NO_MEMORY.rawValue,
                               message: "could not create a socket")
            }
        }
        var connectTimeout = timeval(configuration.connectTimeout)
        try AMQPCheck.status(amqp_socket_open_noblock(socket, url.host, Int32(url.port), &connectTimeout),
                             "amqp_socket_open_noblock")
        // From the first byte of the login on, a write the broker does not take fails within the call bound too.
        try setSendDeadline(configuration.rpcTimeout)
        var rpcTimeout = timeval(configuration.rpcTimeout)
        try AMQPCheck.status(amqp_set_handshake_timeout(state, &rpcTimeout), "amqp_set_handshake_timeout")
        try AMQPCheck.status(amqp_set_rpc_timeout(state, &rpcTimeout), "amqp_set_rpc_timeout")

        let properties: [(String, AMQPFieldValue)] = [
            ("connection_name", .string(configuration.connectionName)),
            ("product", .string("sluice")),
            // Merged by librabbitmq with its own capabilities; consumer_cancel_notify makes the broker send
            // basic.cancel instead of silently dropping our consumer when the queue goes away.
            ("capabilities", .table([
                ("consumer_cancel_notify", .bool(true)),
                ("publisher_confirms", .bool(true)),
                ("connection.blocked", .bool(false)),
            ])),
        ]
        let heartbeat = Int32(clamping: max(configuration.heartbeatSeconds, 0))
        let reply = withAMQPTable(properties) { table in
            var table = table
            return sluice_login_plain(state, url.vhost, 0, 131_072, heartbeat, &table, url.user, url.password)
        }
        try AMQPCheck.reply(reply, "amqp_login")
        isHealthy = true
        for channel in [Self.consumeChannel, Self.publishChannel] {
            amqp_channel_open(state, channel)
            try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_channel_open")
        }
        amqp_confirm_select(state, Self.publishChannel)
        try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_confirm_select")
    }

    deinit {
        if isHealthy {
            // Best effort: the broker then requeues our unacked deliveries at once instead of at socket timeout.
            _ = amqp_connection_close(state, Int32(AMQP_REPLY_SUCCESS))
        }
        amqp_destroy_connection(state)
    }

    /// Forget politeness: the socket is dead or the broker already closed the connection.
    func markBroken() {
        isHealthy = false
    }

    // MARK: Topology and consumers (channel 1, synchronous RPCs)

    /// Declares one exchange, durable queue or binding (idempotent while the arguments stay the same).
    func declare(_ declaration: TopologyDeclaration) throws(AMQPError) {
        let channel = Self.consumeChannel
        switch declaration {
        case let .exchange(name, type):
            withAMQPBytes(name, type) { name, type in
                // passive 0, durable 1, auto_delete 0, internal 0
                _ = amqp_exchange_declare(state, channel, name, type, 0, 1, 0, 0, amqp_empty_table)
            }
            try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_exchange_declare(\(name))")
        case let .queue(name, arguments):
            withAMQPTable(arguments) { table in
                withAMQPBytes(name, "") { name, _ in
                    // passive 0, durable 1, exclusive 0, auto_delete 0
                    _ = amqp_queue_declare(state, channel, name, 0, 1, 0, 0, table)
                }
            }
            try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_queue_declare(\(name))")
        case let .binding(queue, exchange, routingKey):
            withAMQPBytes(queue, exchange) { queue, exchange in
                withAMQPBytes(routingKey, "") { key, _ in
                    _ = amqp_queue_bind(state, channel, queue, exchange, key, amqp_empty_table)
                }
            }
            try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_queue_bind(\(queue))")
        }
    }

    /// Declares this connection's exclusive, auto-delete, server-named control queue bound to `sluice.control`.
    func declareControlQueue() throws(AMQPError) -> String {
        let name = try declareServerNamedQueue("control")
        try declare(.binding(queue: name, exchange: Topology.controlExchange, routingKey: ""))
        return name
    }

    /// basic.qos on the consume channel: at most `prefetch` unacked deliveries.
    func setPrefetch(_ prefetch: UInt16) throws(AMQPError) {
        amqp_basic_qos(state, Self.consumeChannel, 0, prefetch, 0)
        try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_basic_qos")
    }

    /// basic.consume; returns the broker-assigned consumer tag.
    func consume(queue: String, autoAck: Bool) throws(AMQPError) -> String {
        let ok = withAMQPBytes(queue, "") { queue, _ in
            // consumer_tag empty (broker assigns), no_local 0, no_ack, exclusive 0
            amqp_basic_consume(state, Self.consumeChannel, queue, amqp_empty_bytes, 0, autoAck ? 1 : 0, 0,
                               amqp_empty_table)
        }
        try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_basic_consume(\(queue))")
        guard let tag = ok.map({ String(amqpBytes: $0.pointee.consumer_tag) }), !tag.isEmpty else {
            throw .library(function: "amqp_basic_consume(\(queue))", status: AMQP_STATUS_BAD_AMQP_DATA.rawValue,
                           message: "the broker assigned no consumer tag")
        }
        return tag
    }

    /// basic.cancel: no new deliveries for this consumer; unacked ones stay ours to settle.
    func cancel(consumerTag: String) throws(AMQPError) {
        withAMQPBytes(consumerTag, "") { tag, _ in
            _ = amqp_basic_cancel(state, Self.consumeChannel, tag)
        }
        try AMQPCheck.reply(amqp_get_rpc_reply(state), "amqp_basic_cancel")
    }

    // MARK: Settling and publishing (asynchronous methods: no reply to wait for)

    /// basic.ack of one delivery on the consume channel.
    func ack(deliveryTag: UInt64) throws(AMQPError) {
        try AMQPCheck.status(amqp_basic_ack(state, Self.consumeChannel, deliveryTag, 0), "amqp_basic_ack")
    }

    /// basic.reject: back to the queue (`requeue`) or to the queue's dead-letter exchange.
    func reject(deliveryTag: UInt64, requeue: Bool) throws(AMQPError) {
        try AMQPCheck.status(amqp_basic_reject(state, Self.consumeChannel, deliveryTag, requeue ? 1 : 0),
                             "amqp_basic_reject")
    }

    /// basic.publish on the confirm channel, persistent; the confirm arrives later as an `InboundEvent.confirm`.
    func publish(_ message: OutgoingMessage) throws(AMQPError) {
        let headerEntries = message.headers.sorted { $0.key < $1.key }.map { ($0.key, AMQPFieldValue.string($0.value)) }
        let expiration = message.expirationMilliseconds.map(String.init) ?? ""
        let status: Int32 = withAMQPTable(headerEntries) { headers in
            var contentType = message.contentType
            var expirationText = expiration
            return contentType.withUTF8 { contentType in
                expirationText.withUTF8 { expirationBytes in
                    var properties = amqp_basic_properties_t()
                    properties._flags = BasicFlag.contentType | BasicFlag.deliveryMode
                    properties.content_type = amqpBytes(contentType)
                    properties.delivery_mode = UInt8(AMQP_DELIVERY_PERSISTENT.rawValue)
                    if let priority = message.priority {
                        properties._flags |= BasicFlag.priority
                        properties.priority = priority
                    }
                    if message.expirationMilliseconds != nil {
                        properties._flags |= BasicFlag.expiration
                        properties.expiration = amqpBytes(expirationBytes)
                    }
                    if !headerEntries.isEmpty {
                        properties._flags |= BasicFlag.headers
                        properties.headers = headers
                    }
                    return withAMQPBytes(message.exchange, message.routingKey) { exchange, routingKey in
                        message.body.withUnsafeBytes { body in
                            // mandatory 0, immediate 0: routing is guaranteed by our own topology.
                            amqp_basic_publish(state, Self.publishChannel, exchange, routingKey, 0, 0, &properties,
                                               amqpBytes(body))
                        }
                    }
                }
            }
        }
        try AMQPCheck.status(status, "amqp_basic_publish")
    }

    // MARK: Timing

    /// The heartbeat timeout negotiated at login (zero: heartbeats off): the broker drops this connection no sooner
    /// than this long after it last heard from it.
    var heartbeat: Duration {
        .seconds(max(amqp_get_heartbeat(state), 0))
    }

    /// Bounds every later synchronous call (declares, consume, cancel, delete) by `timeout`.
    func setRPCTimeout(_ timeout: Duration) throws(AMQPError) {
        var limit = timeval(timeout)
        try AMQPCheck.status(amqp_set_rpc_timeout(state, &limit), "amqp_set_rpc_timeout")
    }

    /// The write deadline last given to the socket, in milliseconds (nil: none yet), so that an unchanged one costs no
    /// system call.
    private var sendDeadlineMilliseconds: UInt32?

    /// Bounds every later write (publish, ack, heartbeat, the request of an RPC): data the broker's host has not
    /// acknowledged within `deadline` breaks the connection (`TCP_USER_TIMEOUT`), so a write into a dead peer or a full
    /// window fails instead of holding the owner thread (librabbitmq's own sends wait without any deadline).
    /// - Parameter deadline: at least 1 ms.
    func setSendDeadline(_ deadline: Duration) throws(AMQPError) {
        let (seconds, attoseconds) = deadline.components
        let milliseconds = UInt32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        guard milliseconds != sendDeadlineMilliseconds else { return }
        var value = milliseconds
        guard setsockopt(socketDescriptor, Int32(IPPROTO_TCP), AMQPConnection.tcpUserTimeout, &value,
                         socklen_t(MemoryLayout<UInt32>.size)) == 0 else {
            let reason = String(cString: strerror(errno))
            throw .library(function: "setsockopt(TCP_USER_TIMEOUT)", status: AMQP_STATUS_SOCKET_ERROR.rawValue,
                           message: reason)
        }
        sendDeadlineMilliseconds = milliseconds
    }

    /// The deadline on unacknowledged writes the socket has now, read back from the kernel (nil when it cannot be read).
    var socketSendDeadline: Duration? {
        var value: UInt32 = 0
        var length = socklen_t(MemoryLayout<UInt32>.size)
        guard getsockopt(socketDescriptor, Int32(IPPROTO_TCP), AMQPConnection.tcpUserTimeout, &value, &length) == 0 else {
            return nil
        }
        return .milliseconds(Int64(value))
    }

    /// `TCP_USER_TIMEOUT` from <netinet/tcp.h> (Linux 2.6.37 and later).
    static let tcpUserTimeout: Int32 = 18

    // MARK: Reading

    /// True when librabbitmq already holds input, so waiting on the socket would be wrong.
    var hasBufferedInput: Bool {
        amqp_frames_enqueued(state) != 0 || amqp_data_in_buffer(state) != 0
    }

    /// The socket, for poll(2) together with the mailbox's wake-up pipe.
    var socketDescriptor: Int32 {
        amqp_get_sockfd(state)
    }

    /// Reads what is available without blocking (librabbitmq also sends a due heartbeat and detects missed
    /// ones here); nil when nothing is ready. Throws when the connection or a channel is gone.
    func nextEvent() throws(AMQPError) -> InboundEvent? {
        var envelope = amqp_envelope_t()
        var immediately = timeval(tv_sec: 0, tv_usec: 0)
        amqp_maybe_release_buffers(state)
        let reply = amqp_consume_message(state, &envelope, &immediately, 0)
        if reply.reply_type == AMQP_RESPONSE_NORMAL {
            defer { amqp_destroy_envelope(&envelope) }
            let properties = envelope.message.properties
            let hasHeaders = properties._flags & BasicFlag.headers != 0
            let hasPriority = properties._flags & BasicFlag.priority != 0
            return .delivery(channel: envelope.channel, consumerTag: String(amqpBytes: envelope.consumer_tag),
                             deliveryTag: envelope.delivery_tag, redelivered: envelope.redelivered != 0,
                             body: [UInt8](amqpBytes: envelope.message.body),
                             headers: hasHeaders ? stringEntries(of: properties.headers) : [:],
                             priority: hasPriority ? properties.priority : nil)
        }
        if reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION {
            switch reply.library_error {
            case AMQP_STATUS_TIMEOUT.rawValue:
                return nil
            case AMQP_STATUS_UNEXPECTED_STATE.rawValue:
                return try nextMethodFrame()
            default:
                break
            }
        }
        markBroken()
        try AMQPCheck.reply(reply, "amqp_consume_message")
        return nil
    }

    /// A frame that is not a delivery (amqp_consume_message put it back): confirms, cancels, closes.
    private func nextMethodFrame() throws(AMQPError) -> InboundEvent {
        var frame = amqp_frame_t()
        let status = amqp_simple_wait_frame(state, &frame)
        if status != AMQP_STATUS_OK.rawValue { markBroken() }
        try AMQPCheck.status(status, "amqp_simple_wait_frame")
        guard frame.frame_type == UInt8(AMQP_FRAME_METHOD) else { return .ignored }
        let method = frame.payload.method
        switch method.id {
        case AMQP_BASIC_ACK_METHOD:
            guard let ack = method.decoded?.assumingMemoryBound(to: amqp_basic_ack_t.self).pointee else { return .ignored }
            return .confirm(deliveryTag: ack.delivery_tag, multiple: ack.multiple != 0, acked: true)
        case AMQP_BASIC_NACK_METHOD:
            guard let nack = method.decoded?.assumingMemoryBound(to: amqp_basic_nack_t.self).pointee else { return .ignored }
            return .confirm(deliveryTag: nack.delivery_tag, multiple: nack.multiple != 0, acked: false)
        case AMQP_BASIC_CANCEL_METHOD:
            guard let cancel = method.decoded?.assumingMemoryBound(to: amqp_basic_cancel_t.self).pointee else { return .ignored }
            return .consumerCancelled(consumerTag: String(amqpBytes: cancel.consumer_tag))
        case AMQP_BASIC_RETURN_METHOD:
            let text = method.decoded.map {
                String(amqpBytes: $0.assumingMemoryBound(to: amqp_basic_return_t.self).pointee.reply_text)
            } ?? ""
            // The returned message's header and body frames follow; read them so the stream stays in step.
            var message = amqp_message_t()
            let reply = amqp_read_message(state, frame.channel, &message, 0)
            if reply.reply_type == AMQP_RESPONSE_NORMAL { amqp_destroy_message(&message) }
            try AMQPCheck.reply(reply, "amqp_read_message(basic.return)")
            return .returned(replyText: text)
        case AMQP_CHANNEL_CLOSE_METHOD:
            let error = AMQPCheck.serverClose(method: method, function: "channel \(frame.channel)")
            var closeOk = amqp_channel_close_ok_t()
            _ = amqp_send_method(state, frame.channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &closeOk)
            // A lease channel holds one job's lease only: losing it is that lease's business, not the connection's.
            if frame.channel >= Self.firstLeaseChannel { return .leaseChannelClosed(channel: frame.channel, error: error) }
            // Deliveries of channel 1 are void now; the simplest sound recovery is a fresh connection.
            throw error
        case AMQP_CONNECTION_CLOSE_METHOD:
            let error = AMQPCheck.serverClose(method: method, function: "connection")
            var closeOk = amqp_connection_close_ok_t()
            _ = amqp_send_method(state, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &closeOk)
            markBroken()
            throw error
        default:
            return .ignored
        }
    }
}

/// `basic.properties` presence flags (C `#define`s of `int`, typed here as `amqp_flags_t`).
private enum BasicFlag {
    static let contentType = amqp_flags_t(AMQP_BASIC_CONTENT_TYPE_FLAG)
    static let deliveryMode = amqp_flags_t(AMQP_BASIC_DELIVERY_MODE_FLAG)
    static let priority = amqp_flags_t(AMQP_BASIC_PRIORITY_FLAG)
    static let expiration = amqp_flags_t(AMQP_BASIC_EXPIRATION_FLAG)
    static let headers = amqp_flags_t(AMQP_BASIC_HEADERS_FLAG)
}

extension timeval {
    /// A `timeval` from a Swift duration (negative durations become zero).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else {
            self.init(tv_sec: 0, tv_usec: 0)
            return
        }
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
