import Foundation

/// Misbehaving RTMP clients, written in Python so each one is a few lines of raw socket code. Prints one
/// line: how many of its connections the server closed, and how many stayed open.
enum HostilePeer {
    static let script = #"""
import os, socket, sys, time
host, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def connect():
    s = socket.create_connection((host, port), timeout=5)
    return s

def handshake(s):
    s.sendall(b'\x03' + bytes(1536))
    got = b''
    while len(got) < 1 + 2 * 1536:
        d = s.recv(65536)
        if not d:
            return False
        got += d
    s.sendall(got[1:1537])
    return True

def chunk(csid, length, type_id, body):
    return bytes([csid]) + (0).to_bytes(3, 'big') + length.to_bytes(3, 'big') + bytes([type_id]) + (0).to_bytes(4, 'little') + body

def closed_within(s, seconds):
    s.settimeout(seconds)
    end = time.time() + seconds
    try:
        while time.time() < end:
            d = s.recv(65536)
            if not d:
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
    return False

if mode in ('random', 'chunk0', 'chunkhuge', 'bigmessage'):
    s = connect()
    if mode == 'random':
        s.sendall(os.urandom(1))  # any version byte
        try:
            s.sendall(os.urandom(200000))
        except (BrokenPipeError, ConnectionResetError):
            print('closed 1 open 0'); sys.exit(0)
    else:
        if not handshake(s):
            print('closed 1 open 0'); sys.exit(0)
        if mode == 'chunk0':
            s.sendall(chunk(2, 4, 1, (0).to_bytes(4, 'big')))
        elif mode == 'chunkhuge':
            s.sendall(chunk(2, 4, 1, (0x80000000).to_bytes(4, 'big')))
        else:
            s.sendall(chunk(4, 0xFFFFFF, 9, bytes(128)))  # a 16 MB message claimed
    print('closed %d open %d' % ((1, 0) if closed_within(s, 5) else (0, 1)))
elif mode in ('slowloris', 'nohandshake'):
    count = int(sys.argv[4])
    hold = float(sys.argv[5])
    sockets = []
    started = time.monotonic()
    for _ in range(count):
        try:
            s = connect()
            s.sendall(b'\x03' + (bytes(100) if mode == 'nohandshake' else b''))
            sockets.append(s)
        except OSError:
            pass
    time.sleep(hold)
    # Optional: poll until at most MAX_OPEN are open, but only until GIVE_UP seconds after the first connect.
    max_open = int(sys.argv[6]) if len(sys.argv) > 6 else len(sockets)
    give_up = float(sys.argv[7]) if len(sys.argv) > 7 else hold
    seen_closed = set()
    while True:
        for i, s in enumerate(sockets):
            if i not in seen_closed and closed_within(s, 0.01):
                seen_closed.add(i)
        if len(sockets) - len(seen_closed) <= max_open or time.monotonic() - started >= give_up:
            break
        time.sleep(0.25)
    closed = len(seen_closed)
    print('closed %d open %d' % (closed + count - len(sockets), len(sockets) - closed))
"""#

    /// Runs `mode` against the port; returns (closed, open) connection counts.
    static func run(port: Int, mode: String, arguments: [String] = []) throws -> (closed: Int, open: Int) {
        let output = try Live.run("/usr/bin/python3", ["-c", script, "127.0.0.1", String(port), mode] + arguments)
        let words = output.split(whereSeparator: \.isWhitespace)
        guard words.count == 4, let closed = Int(words[1]), let open = Int(words[3]) else { throw LiveTestError("hostile peer said: \(output)") }
        return (closed, open)
    }
}
