// RFC 3640 §3.2.1 The AU Header Section, §3.2.1.1 the AU-header (AU-size, AU-Index, AU-Index-delta).

/// The AU headers at the front of an `mpeg4-generic` payload and where the access units start: a 16-bit
/// AU-headers-length in bits, the headers packed in it, padding to the octet, then the access units in order.
public struct AUHeaderSection: Sendable, Equatable {
    /// One AU-header.
    public struct Header: Sendable, Equatable {
        /// AU-size in octets: of the whole AU, also in each packet of a fragmented one.
        public var size: Int
        /// AU-Index for the first header, AU-Index-delta for the others.
        public var index: Int
    }

    public var headers: [Header]
    /// The access-unit data after the section.
    public var data: ArraySlice<UInt8>

    /// The section of `payload` laid out by `parameters`. Short input throws `.truncated`; a headers length that is
    /// not a whole number of headers, or no header at all, throws `.invalid`.
    public init(parsing payload: ArraySlice<UInt8>, parameters: MPEG4GenericParameters) throws {
        var reader = ByteReader(payload)
        let lengthInBits = Int(try reader.readUInt16())
        let sectionBytes = try reader.readBytes((lengthInBits + 7) / 8)
        var bits = BitReader(sectionBytes)
        var headers: [Header] = []
        var consumed = 0
        while consumed < lengthInBits {
            let indexLength = headers.isEmpty ? parameters.indexLength : parameters.indexDeltaLength
            let headerLength = parameters.sizeLength + indexLength
            guard consumed + headerLength <= lengthInBits else {
                throw MediaFormatError.invalid(structure: "AU header section",
                                               reason: "\(lengthInBits) bits are not whole AU headers of \(headerLength) bits")
            }
            let size = Int(try bits.readBits(parameters.sizeLength))
            let index = Int(try bits.readBits(indexLength))
            headers.append(Header(size: size, index: index))
            consumed += headerLength
        }
        guard !headers.isEmpty else { throw MediaFormatError.invalid(structure: "AU header section", reason: "no AU header") }
        self.headers = headers
        data = reader.readRemaining()
    }
}
