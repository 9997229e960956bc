// AMQP 0-9-1 §4.2.5.5 field tables, as extended by RabbitMQ (https://www.rabbitmq.com/amqp-0-9-1-errata.html).
import CRabbitMQ
#if canImport(Glibc)
import Glibc
#endif

/// The field-table values Sluice writes: queue arguments, headers and client properties.
enum AMQPFieldValue: Equatable, Sendable {
    /// A long string ('S').
    case string(String)
    /// A signed 32-bit integer ('I'), what RabbitMQ expects for x-max-priority and friends.
    case int(Int32)
    /// A signed 64-bit integer ('l').
    case long(Int64)
    /// A boolean ('t').
    case bool(Bool)
    /// A nested table ('F'), e.g. the `capabilities` client property.
    case table([(String, AMQPFieldValue)])

    static func == (lhs: AMQPFieldValue, rhs: AMQPFieldValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(l), .string(r)): return l == r
        case let (.int(l), .int(r)): return l == r
        case let (.long(l), .long(r)): return l == r
        case let (.bool(l), .bool(r)): return l == r
        case let (.table(l), .table(r)): return l.count == r.count && zip(l, r).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

/// Builds an `amqp_table_t` for one librabbitmq call. The C table points into malloc'd copies that live exactly
/// as long as `body` runs: librabbitmq encodes the table during the call and keeps no reference to it.
func withAMQPTable<R, E: Error>(_ entries: [(String, AMQPFieldValue)], _ body: (amqp_table_t) throws(E) -> R) throws(E) -> R {
    var arena = AMQPTableArena()
    defer { arena.release() }
    return try body(arena.table(entries))
}

/// The allocations behind one built table, freed together.
private struct AMQPTableArena {
    private var allocations: [UnsafeMutableRawPointer] = []

    mutating func table(_ entries: [(String, AMQPFieldValue)]) -> amqp_table_t {
        guard !entries.isEmpty else { return amqp_table_t(num_entries: 0, entries: nil) }
        let raw = allocate(MemoryLayout<amqp_table_entry_t>.stride * entries.count)
        let table = raw.bindMemory(to: amqp_table_entry_t.self, capacity: entries.count)
        for (index, (key, value)) in entries.enumerated() {
            var entry = amqp_table_entry_t()
            entry.key = bytes(key)
            entry.value = field(value)
            (table + index).initialize(to: entry)
        }
        return amqp_table_t(num_entries: Int32(entries.count), entries: table)
    }

    private mutating func field(_ value: AMQPFieldValue) -> amqp_field_value_t {
        var field = amqp_field_value_t()
        switch value {
        case let .string(string):
            field.kind = UInt8(AMQP_FIELD_KIND_UTF8.rawValue)
            field.value.bytes = bytes(string)
        case let .int(int):
            field.kind = UInt8(AMQP_FIELD_KIND_I32.rawValue)
            field.value.i32 = int
        case let .long(long):
            field.kind = UInt8(AMQP_FIELD_KIND_I64.rawValue)
            field.value.i64 = long
        case let .bool(bool):
            field.kind = UInt8(AMQP_FIELD_KIND_BOOLEAN.rawValue)
            field.value.boolean = bool ? 1 : 0
        case let .table(entries):
            field.kind = UInt8(AMQP_FIELD_KIND_TABLE.rawValue)
            field.value.table = table(entries)
        }
        return field
    }

    private mutating func bytes(_ string: String) -> amqp_bytes_t {
        let utf8 = Array(string.utf8)
        guard !utf8.isEmpty else { return amqp_bytes_t(len: 0, bytes: nil) }
        let pointer = allocate(utf8.count)
        utf8.withUnsafeBytes { source in
            if let base = source.baseAddress { pointer.copyMemory(from: base, byteCount: source.count) }
        }
        return amqp_bytes_t(len: utf8.count, bytes: pointer)
    }

    private mutating func allocate(_ byteCount: Int) -> UnsafeMutableRawPointer {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 16)
        allocations.append(pointer)
        return pointer
    }

    mutating func release() {
        allocations.forEach { $0.deallocate() }
        allocations.removeAll()
    }
}

/// Reads a received table's scalar entries as strings (integers in decimal, booleans as true/false). Arrays
/// and nested tables, such as RabbitMQ's `x-death`, are skipped: callers match on Sluice's own headers.
func stringEntries(of table: amqp_table_t) -> [String: String] {
    guard table.num_entries > 0, let entries = table.entries else { return [:] }
    var result: [String: String] = [:]
    for index in 0..<Int(table.num_entries) {
        let entry = entries[index]
        if let value = stringValue(of: entry.value) {
            result[String(amqpBytes: entry.key)] = value
        }
    }
    return result
}

private func stringValue(of field: amqp_field_value_t) -> String? {
    switch Int(field.kind) {
    case Int(AMQP_FIELD_KIND_UTF8.rawValue), Int(AMQP_FIELD_KIND_BYTES.rawValue):
        return String(amqpBytes: field.value.bytes)
    case Int(AMQP_FIELD_KIND_BOOLEAN.rawValue): return field.value.boolean != 0 ? "true" : "false"
    case Int(AMQP_FIELD_KIND_I8.rawValue): return String(field.value.i8)
    case Int(AMQP_FIELD_KIND_U8.rawValue): return String(field.value.u8)
    case Int(AMQP_FIELD_KIND_I16.rawValue): return String(field.value.i16)
    case Int(AMQP_FIELD_KIND_U16.rawValue): return String(field.value.u16)
    case Int(AMQP_FIELD_KIND_I32.rawValue): return String(field.value.i32)
    case Int(AMQP_FIELD_KIND_U32.rawValue): return String(field.value.u32)
    case Int(AMQP_FIELD_KIND_I64.rawValue), Int(AMQP_FIELD_KIND_TIMESTAMP.rawValue): return String(field.value.i64)
    case Int(AMQP_FIELD_KIND_U64.rawValue): return String(field.value.u64)
    default: return nil
    }
}
