// RFC 5389 §15.1 (MAPPED-ADDRESS) and §15.2 (XOR-MAPPED-ADDRESS): a family, a port and an address, the XOR form
// masked with the magic cookie (port, IPv4) or the cookie and transaction ID (IPv6) so NATs do not rewrite it.

/// Reading and writing the value of MAPPED-ADDRESS and XOR-MAPPED-ADDRESS.
enum STUNAddressAttribute {
    /// The first two bytes of the cookie mask the port; the cookie and the transaction ID mask the address.
    static func mask(_ transactionID: STUNTransactionID) -> [UInt8] {
        var mask: [UInt8] = []
        mask.appendUInt32(STUNMessage.magicCookie)
        return mask + transactionID.bytes
    }

    /// - Parameters:
    ///   - value: the attribute's value (padding excluded).
    ///   - xorWith: the transaction ID for XOR-MAPPED-ADDRESS, nil for MAPPED-ADDRESS.
    static func parse(_ value: ArraySlice<UInt8>, xorWith transactionID: STUNTransactionID?) throws -> TransportAddress {
        let structure = transactionID == nil ? "MAPPED-ADDRESS" : "XOR-MAPPED-ADDRESS"
        guard value.count >= 4 else { throw STUNError.truncated(structure: structure, needed: 4, available: value.count) }
        let start = value.startIndex
        guard let family = TransportAddress.Family(rawValue: value[start + 1]) else {
            throw STUNError.malformed(structure: structure, reason: "family 0x\(String(value[start + 1], radix: 16)) is neither IPv4 (1) nor IPv6 (2)")
        }
        guard value.count == 4 + family.addressSize else {
            throw STUNError.malformed(structure: structure, reason: "\(value.count) bytes for an \(family == .ipv4 ? "IPv4" : "IPv6") address, expected \(4 + family.addressSize)")
        }
        var port = UInt16(value[start + 2]) << 8 | UInt16(value[start + 3])
        var address = Array(value[(start + 4)...])
        if let transactionID {
            let mask = mask(transactionID)
            port ^= UInt16(mask[0]) << 8 | UInt16(mask[1])
            for index in address.indices { address[index] ^= mask[index] }
        }
        return TransportAddress(checked: address, port: port)
    }

    static func write(_ address: TransportAddress, xorWith transactionID: STUNTransactionID?, into out: inout [UInt8]) {
        // 8 reserved bits, the 8-bit family, the 16-bit port, the address.
        out += [0, address.family.rawValue]
        guard let transactionID else {
            out.appendUInt16(address.port)
            out += address.address
            return
        }
        let mask = mask(transactionID)
        out.appendUInt16(address.port ^ (UInt16(mask[0]) << 8 | UInt16(mask[1])))
        for (index, byte) in address.address.enumerated() { out.append(byte ^ mask[index]) }
    }
}
