#!/usr/bin/env python3
"""test/gpud/proto.py — the GPU daemon's socket protocol, without PostgreSQL and without a GPU.

Starts themis-gpud (path given, default ./themis-gpud) on a socket in a temporary directory and checks:
HELLO is answered with the daemon's status; a peer speaking another protocol version gets a clear
ERROR and is disconnected; a message with a bad magic number is dropped; a malformed EXECUTE gets a
protocol ERROR; the daemon keeps serving other connections after all of these; removing its socket
file makes it exit, and so does SIGTERM.  Layouts: include/themis/tm_gpud_proto.h.
Prints ok / not ok lines and "N passed, N failed"; exit status 1 on failure.
"""
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

MAGIC = 0x44505447


def proto_version():
    """TM_GPUD_PROTO_VERSION of include/themis/tm_gpud_proto.h"""
    import re
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "include", "themis", "tm_gpud_proto.h")) as f:
        return int(re.search(r"#define\s+TM_GPUD_PROTO_VERSION\s+(\d+)", f.read()).group(1))


VERSION = proto_version()
HDR = struct.Struct("<IHHIIQ")          # magic, version, type, nfds, pad, len
T_HELLO, T_HELLO_OK, T_ERROR, T_STATUS, T_STATUS_OK, T_EXECUTE = 1, 2, 3, 4, 5, 6
ERR_VERSION, ERR_PROTOCOL = 1, 2
STATUS_SIZE = 512
ERROR_HEAD = struct.Struct("<iiiiqii")  # kind, gpu_rc, status, pipeline, row, msglen, pad

results = []


def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("ok - " if cond else "not ok - ") + name + ("" if cond or not detail else "  (%s)" % detail))


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def request(path, mtype, payload=b"", version=VERSION, magic=MAGIC):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    s.sendall(HDR.pack(magic, version, mtype, 0, 0, len(payload)) + payload)
    head = recv_exact(s, HDR.size)
    if head is None:
        s.close()
        return None, None, None
    magic_r, ver_r, type_r, _, _, length = HDR.unpack(head)
    body = recv_exact(s, length) if length else b""
    # after an error the daemon may close: see whether it did
    s.settimeout(0.5)
    try:
        closed = s.recv(1) == b""
    except socket.timeout:
        closed = False
    s.close()
    return (ver_r, type_r), body, closed


def main():
    gpud = sys.argv[1] if len(sys.argv) > 1 else "./themis-gpud"
    if not os.access(gpud, os.X_OK):
        print("skip - %s not built (no CUDA toolkit)" % gpud)
        print("0 passed, 0 failed, 1 skipped")
        return 0
    tmp = tempfile.mkdtemp(prefix="themis-proto.")
    path = os.path.join(tmp, "gpud.sock")
    log = open(os.path.join(tmp, "gpud.log"), "w")
    p = subprocess.Popen([gpud, "--socket", path, "--memory-limit", "256M"], stdout=log, stderr=log)
    for _ in range(300):
        if os.path.exists(path):
            break
        time.sleep(0.05)
    check("the daemon listens on its socket", os.path.exists(path))

    (ver, typ), body, _ = request(path, T_HELLO)
    check("HELLO is answered with HELLO_OK and the status", ver == VERSION and typ == T_HELLO_OK and len(body) == STATUS_SIZE,
          "type %s, %d bytes" % (typ, len(body or b"")))
    usable, _, _, pid = struct.unpack_from("<iiii", body)
    detail = body[STATUS_SIZE - 256:].split(b"\0")[0].decode()
    check("the status names the daemon's pid", pid == p.pid, "pid %d vs %d" % (pid, p.pid))
    print("# usable=%d detail=%s" % (usable, detail))

    (ver, typ), body, closed = request(path, T_HELLO, version=VERSION + 41)
    ok = typ == T_ERROR and len(body) >= ERROR_HEAD.size
    kind = ERROR_HEAD.unpack_from(body)[0] if ok else None
    msg = body[ERROR_HEAD.size:].decode() if ok else ""
    check("another protocol version gets an ERROR (version mismatch)", ok and kind == ERR_VERSION, "type %s kind %s" % (typ, kind))
    check("... that says which versions", ("protocol version %d" % VERSION) in msg and str(VERSION + 41) in msg, msg)
    check("... and is disconnected", closed)

    r = request(path, T_HELLO, magic=0x12345678)
    check("a bad magic number is dropped without an answer", r[0] is None)

    (ver, typ), body, _ = request(path, T_EXECUTE, b"\x01\x02\x03")
    kind = ERROR_HEAD.unpack_from(body)[0] if typ == T_ERROR else None
    check("a malformed EXECUTE gets a protocol ERROR", typ == T_ERROR and kind == ERR_PROTOCOL, "type %s kind %s" % (typ, kind))

    (ver, typ), body, _ = request(path, T_STATUS)
    check("the daemon still serves STATUS after all that", typ == T_STATUS_OK and len(body) == STATUS_SIZE)
    check("the daemon is alive", p.poll() is None)

    os.unlink(path)
    try:
        rc = p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        rc = None
    check("removing the socket file makes the daemon exit", rc == 0, "rc %s" % rc)
    if rc is None:
        p.kill()

    path2 = os.path.join(tmp, "gpud2.sock")
    p2 = subprocess.Popen([gpud, "--socket", path2, "--memory-limit", "256M"], stdout=log, stderr=log)
    for _ in range(300):
        if os.path.exists(path2):
            break
        time.sleep(0.05)
    p2.send_signal(signal.SIGTERM)
    try:
        rc = p2.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p2.kill()
        rc = None
    check("SIGTERM stops the daemon (and it removes its socket)", rc == 0 and not os.path.exists(path2), "rc %s" % rc)

    n_ok = sum(results)
    n_bad = len(results) - n_ok
    print("%d passed, %d failed" % (n_ok, n_bad))
    return 0 if n_bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
