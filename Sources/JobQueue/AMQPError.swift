import CRabbitMQ

/// A failure of the AMQP transport: librabbitmq's message or the broker's close reason, and the call that failed.
/// Never carries credentials: URLs appear only in their redacted form.
public enum AMQPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// librabbitmq reported a status (socket error, timeout, missed heartbeat, TLS, protocol error).
    case library(function: String, status: Int32, message: String)
    /// The broker closed the channel, e.g. 406 PRECONDITION_FAILED for a redeclare with other arguments.
    case channelClosed(function: String, code: UInt16, reason: String)
    /// The broker closed the connection, e.g. 320 CONNECTION_FORCED or 403 ACCESS_REFUSED.
    case connectionClosed(function: String, code: UInt16, reason: String)
    /// The broker answered with a method the call did not expect (its AMQP method id).
    case unexpectedMethod(function: String, method: UInt32)
    /// The broker URL is unusable; the reason never quotes the credentials.
    case invalidURL(reason: String)
    /// The broker refused a publish with basic.nack.
    case publishRefused(exchange: String, routingKey: String)
    /// The connection dropped before the broker confirmed; the message may or may not have been stored.
    case connectionLost(reason: String)
    /// The delivery came from an earlier connection: its tag means nothing on the current channel.
    case staleDelivery(generation: Int, current: Int)
    /// The connection was closed with `close()`, or gave up connecting.
    case closed(reason: String)

    public var description: String {
        switch self {
        case let .library(function, status, message):
            return "\(function): \(message) (librabbitmq status \(status))"
        case let .channelClosed(function, code, reason):
            return "\(function): the broker closed the channel: \(code) \(reason)"
        case let .connectionClosed(function, code, reason):
            return "\(function): the broker closed the connection: \(code) \(reason)"
        case let .unexpectedMethod(function, method):
            return "\(function): unexpected AMQP method 0x\(String(method, radix: 16))"
        case let .invalidURL(reason):
            return "invalid broker URL: \(reason)"
        case let .publishRefused(exchange, routingKey):
            return "the broker refused (basic.nack) a publish to exchange '\(exchange)' with key '\(routingKey)'"
        case let .connectionLost(reason):
            return "the broker connection was lost before the publish was confirmed: \(reason)"
        case let .staleDelivery(generation, current):
            return "delivery from connection generation \(generation) cannot be settled on generation \(current)"
        case let .closed(reason):
            return "the broker connection is closed: \(reason)"
        }
    }

    /// True for failures that a new connection may cure (as opposed to a refused publish or a closed handle).
    public var isConnectionFailure: Bool {
        switch self {
        case .library, .channelClosed, .connectionClosed, .unexpectedMethod, .connectionLost: return true
        case .invalidURL, .publishRefused, .staleDelivery, .closed: return false
        }
    }
}

/// The one checker every librabbitmq result passes through (STYLE 6): a status code or an RPC reply becomes
/// either success or an `AMQPError` carrying librabbitmq's message or the broker's close code and reason.
enum AMQPCheck {
    /// Checks an `amqp_rpc_reply_t` from an RPC-style call.
    static func reply(_ reply: amqp_rpc_reply_t, _ function: String) throws(AMQPError) {
        switch reply.reply_type {
        case AMQP_RESPONSE_NORMAL:
            return
        case AMQP_RESPONSE_NONE:
            // librabbitmq's own word for "the reply is missing": treat as a protocol error.
            throw .library(function: function, status: AMQP_STATUS_BAD_AMQP_DATA.rawValue,
                           message: "missing RPC reply")
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            throw .library(function: function, status: reply.library_error,
                           message: String(cString: amqp_error_string2(reply.library_error)))
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            throw serverClose(method: reply.reply, function: function)
        default:
            throw .library(function: function, status: AMQP_STATUS_BAD_AMQP_DATA.rawValue,
                           message: "unknown reply type \(reply.reply_type.rawValue)")
        }
    }

    /// Checks a plain status code (`AMQP_STATUS_OK` or a negative `amqp_status_enum`).
    static func status(_ status: Int32, _ function: String) throws(AMQPError) {
        var reply = amqp_rpc_reply_t()
        reply.reply_type = status == AMQP_STATUS_OK.rawValue ? AMQP_RESPONSE_NORMAL : AMQP_RESPONSE_LIBRARY_EXCEPTION
        reply.library_error = status
        try Self.reply(reply, function)
    }

    /// The typed error for a broker-sent channel.close / connection.close method (or anything else it sent).
    static func serverClose(method: amqp_method_t, function: String) -> AMQPError {
        switch method.id {
        case AMQP_CHANNEL_CLOSE_METHOD:
            guard let close = method.decoded?.assumingMemoryBound(to: amqp_channel_close_t.self).pointee else {
                return .channelClosed(function: function, code: 0, reason: "")
            }
            return .channelClosed(function: function, code: close.reply_code, reason: String(amqpBytes: close.reply_text))
        case AMQP_CONNECTION_CLOSE_METHOD:
            guard let close = method.decoded?.assumingMemoryBound(to: amqp_connection_close_t.self).pointee else {
                return .connectionClosed(function: function, code: 0, reason: "")
            }
            return .connectionClosed(function: function, code: close.reply_code,
                                     reason: String(amqpBytes: close.reply_text))
        default:
            return .unexpectedMethod(function: function, method: method.id)
        }
    }
}
