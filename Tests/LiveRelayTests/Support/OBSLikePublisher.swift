import Foundation

/// A publisher that speaks as OBS does (chunk size 4096 announced before connect, flashVer "FMLE/3.0",
/// releaseStream and FCPublish before createStream, @setDataFrame onMetaData), streaming an FLV file at 1×.
/// Written in Python: a few lines of raw socket code, independent of Sluice's own RTMP client.
enum OBSLikePublisher {
    static let script = #"""
import socket, struct, sys, time
host, port, app, key, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
CHUNK = 4096

def amf_str(s):
    b = s.encode(); return b'\x02' + struct.pack('>H', len(b)) + b
def amf_num(n): return b'\x00' + struct.pack('>d', n)
def amf_obj(pairs):
    out = b'\x03'
    for k, v in pairs:
        kb = k.encode(); out += struct.pack('>H', len(kb)) + kb + v
    return out + b'\x00\x00\x09'
AMF_NULL = b'\x05'

s = socket.create_connection((host, port), timeout=10)
s.sendall(b'\x03' + bytes(1536))
got = b''
while len(got) < 1 + 2 * 1536:
    d = s.recv(65536)
    if not d: sys.exit('closed during handshake')
    got += d
s.sendall(got[1:1537])

def send(csid, type_id, msid, body, ts=0):
    out = bytes([csid]) + ts.to_bytes(3, 'big') + len(body).to_bytes(3, 'big') + bytes([type_id]) + msid.to_bytes(4, 'little')
    first = True
    for i in range(0, max(len(body), 1), CHUNK):
        if not first: out += bytes([0xC0 | csid])
        out += body[i:i + CHUNK]
        first = False
    s.sendall(out)

received = b''
def drain(seconds):
    global received
    s.settimeout(seconds)
    end = time.time() + seconds
    try:
        while time.time() < end:
            d = s.recv(65536)
            if not d: break
            received += d
    except socket.timeout:
        pass

send(2, 1, 0, struct.pack('>I', CHUNK))
tc = 'rtmp://%s:%d/%s' % (host, port, app)
send(3, 20, 0, amf_str('connect') + amf_num(1) + amf_obj([('app', amf_str(app)), ('type', amf_str('nonprivate')),
     ('flashVer', amf_str('FMLE/3.0 (compatible; FMSc/1.0)')), ('swfUrl', amf_str(tc)), ('tcUrl', amf_str(tc))]))
drain(0.5)
send(3, 20, 0, amf_str('releaseStream') + amf_num(2) + AMF_NULL + amf_str(key))
send(3, 20, 0, amf_str('FCPublish') + amf_num(3) + AMF_NULL + amf_str(key))
send(3, 20, 0, amf_str('createStream') + amf_num(4) + AMF_NULL)
drain(0.5)
send(4, 20, 1, amf_str('publish') + amf_num(5) + AMF_NULL + amf_str(key) + amf_str('live'))
drain(0.5)
if b'NetStream.Publish.Start' not in received:
    sys.exit('no NetStream.Publish.Start')

data = open(path, 'rb').read()
pos = 13
start = time.time()
while pos + 11 <= len(data):
    type_id = data[pos]
    size = int.from_bytes(data[pos + 1:pos + 4], 'big')
    ts = int.from_bytes(data[pos + 4:pos + 7], 'big') | (data[pos + 7] << 24)
    body = data[pos + 11:pos + 11 + size]
    pos += 11 + size + 4
    delay = ts / 1000.0 - (time.time() - start)
    if delay > 0: time.sleep(delay)
    if type_id == 18:
        send(5, 18, 1, amf_str('@setDataFrame') + body, ts)
    elif type_id in (8, 9):
        send(6 if type_id == 9 else 7, type_id, 1, body, ts)
send(3, 20, 0, amf_str('FCUnpublish') + amf_num(6) + AMF_NULL + amf_str(key))
send(3, 20, 0, amf_str('deleteStream') + amf_num(7) + AMF_NULL + amf_num(1))
time.sleep(0.2)
s.close()
print('published')
"""#

    /// Publishes `flv` to rtmp://127.0.0.1:`port`/`app`/`key`; returns once the file has been sent.
    static func run(port: Int, app: String, key: String, flv: String) throws -> String {
        try Live.run("/usr/bin/python3", ["-c", script, "127.0.0.1", String(port), app, key, flv])
    }
}
