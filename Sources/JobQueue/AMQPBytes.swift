import CRabbitMQ

extension String {
    /// Decodes AMQP short/long string bytes (UTF-8; invalid sequences become U+FFFD rather than failing).
    init(amqpBytes bytes: amqp_bytes_t) {
        guard let base = bytes.bytes, bytes.len > 0 else {
            self = ""
            return
        }
        self = String(decoding: UnsafeRawBufferPointer(start: base, count: bytes.len), as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Copies a message body out of librabbitmq's pool, which is recycled after the envelope is destroyed.
    init(amqpBytes bytes: amqp_bytes_t) {
        guard let base = bytes.bytes, bytes.len > 0 else {
            self = []
            return
        }
        self = Array(UnsafeRawBufferPointer(start: base, count: bytes.len))
    }
}

/// Calls `body` with `amqp_bytes_t` views of the strings; the views are valid only inside `body`.
func withAMQPBytes<R, E: Error>(_ a: String, _ b: String, _ body: (amqp_bytes_t, amqp_bytes_t) throws(E) -> R) throws(E) -> R {
    var a = a
    var b = b
    // withUTF8 makes the storage contiguous; the pointers are borrowed for the duration of the closure.
    let result: Result<R, E> = a.withUTF8 { aa in
        b.withUTF8 { bb in
            do throws(E) {
                return .success(try body(amqpBytes(aa), amqpBytes(bb)))
            } catch {
                return .failure(error)
            }
        }
    }
    return try result.get()
}

/// A borrowed `amqp_bytes_t` view of a buffer (librabbitmq only reads through it).
func amqpBytes(_ buffer: UnsafeBufferPointer<UInt8>) -> amqp_bytes_t {
    amqp_bytes_t(len: buffer.count, bytes: UnsafeMutableRawPointer(mutating: buffer.baseAddress))
}

/// A borrowed `amqp_bytes_t` view of a raw buffer.
func amqpBytes(_ buffer: UnsafeRawBufferPointer) -> amqp_bytes_t {
    amqp_bytes_t(len: buffer.count, bytes: UnsafeMutableRawPointer(mutating: buffer.baseAddress))
}
