// RFC 5769 §2.1-§2.3: the sample short-term request and the IPv4 and IPv6 responses, as bytes.

enum STUNTestVectors {
    /// The short-term password of all three samples.
    static let password = "VOkJxbRl1RmTxUk/WvJxBt"
    static let transactionID: [UInt8] = [0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE]

    /// §2.1: SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME "evtj:h6vY", MESSAGE-INTEGRITY, FINGERPRINT.
    static let request = hex("""
        00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
        00 24 00 04 6e 00 01 ff
        80 29 00 08 93 2f f9 b1 51 26 3b 36
        00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
        00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
        80 28 00 04 e5 7a 3b cf
        """)

    /// §2.2: SOFTWARE, XOR-MAPPED-ADDRESS 192.0.2.1:32853, MESSAGE-INTEGRITY, FINGERPRINT.
    static let ipv4Response = hex("""
        01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 08 00 01 a1 47 e1 12 a6 43
        00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
        80 28 00 04 c0 7d 4c 96
        """)

    /// §2.3: SOFTWARE, XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853, MESSAGE-INTEGRITY, FINGERPRINT.
    static let ipv6Response = hex("""
        01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
        00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
        80 28 00 04 c8 fb 0b 4c
        """)

    /// Bytes from hex pairs separated by white space.
    static func hex(_ text: String) -> [UInt8] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0, radix: 16) }
    }
}
