#!/usr/bin/env python3
"""test/gpud/proto.py — the GPU daemon's socket protocol, without PostgreSQL and without a GPU.

Starts themis-gpud (path given, default ./themis-gpud) on a socket in a temporary directory and checks:
HELLO is answered with the daemon's status; a peer speaking another protocol version gets a clear
ERROR and is disconnected; a message with a bad magic number is dropped; a malformed EXECUTE gets a
protocol ERROR; a LOAD whose source names a descriptor that was not sent, one too short for it, or one
another source has, gets a protocol ERROR, and a well-formed one with three descriptors passes those
checks (LOAD_OK, or without a GPU the no-device ERROR); two LOADs sent back to back on one connection
are both answered in order (themis.stream_loads); the daemon keeps serving other connections after all
of these; removing its socket file makes it exit, and so does SIGTERM.  Layouts:
include/themis/tm_gpud_proto.h.
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
T_LOAD, T_LOAD_OK = 9, 10
ERR_VERSION, ERR_PROTOCOL, ERR_NO_DEVICE = 1, 2, 3
EXEC = struct.Struct("<iiiiqqqiiq")      # TmxExec: blob_len, nparams, npipes, flags, params_text_len,
                                         # fd_len, topn_n, topn_col, topn_flags, swap_rows
SOURCE = struct.Struct("<iiIIIiQQqiiq64s")  # TmxSource: mode, ncols, dboid, relid, relfilenode, store,
                                         # table_count, global_count, nrows, fd_slot, pad, slot_len, relname
SRC_INLINE = 1
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


def request(path, mtype, payload=b"", version=VERSION, magic=MAGIC, fds=()):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    msg = HDR.pack(magic, version, mtype, len(fds), 0, len(payload)) + payload
    if fds:
        # the descriptors go with the first bytes, as tm_msg_send sends them
        n = socket.send_fds(s, [msg], list(fds))
        s.sendall(msg[n:])
    else:
        s.sendall(msg)
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

    # LOADs of one or two inline sources with no columns, their data in descriptors of their own
    def memfd(size):
        fd = os.memfd_create("proto-test")
        os.ftruncate(fd, size)
        return fd

    def load(sources, fds, fd_len=8):
        payload = EXEC.pack(0, 0, len(sources), 0, 0, fd_len, 0, 0, 0, 0)
        for slot, slot_len in sources:
            payload += SOURCE.pack(SRC_INLINE, 0, 1, 2, 3, 0, 0, 0, 0, slot, 0, slot_len, b"t")
        (ver, typ), body, _ = request(path, T_LOAD, payload, fds=fds)
        kind = ERROR_HEAD.unpack_from(body)[0] if typ == T_ERROR else None
        return typ, kind, body[ERROR_HEAD.size:].decode(errors="replace") if typ == T_ERROR else ""

    f8, g8, h8 = memfd(8), memfd(8), memfd(8)
    typ, kind, msg = load([(2, 8)], [f8, g8])
    check("a LOAD whose source names a descriptor not sent gets a protocol ERROR",
          typ == T_ERROR and kind == ERR_PROTOCOL, "type %s kind %s %s" % (typ, kind, msg))
    typ, kind, msg = load([(1, 4096)], [f8, g8])
    check("... one whose descriptor is shorter than its length says so",
          typ == T_ERROR and kind == ERR_PROTOCOL and "4096 bytes" in msg, "type %s kind %s %s" % (typ, kind, msg))
    typ, kind, msg = load([(1, 8), (1, 8)], [f8, g8])
    check("... and two sources that name one descriptor get a protocol ERROR",
          typ == T_ERROR and kind == ERR_PROTOCOL, "type %s kind %s %s" % (typ, kind, msg))
    typ, kind, msg = load([(1, 8), (2, 8)], [f8, g8, h8])
    check("a well-formed LOAD with three descriptors passes the checks (LOAD_OK, or no device without a GPU)",
          typ == T_LOAD_OK if usable else (typ == T_ERROR and kind == ERR_NO_DEVICE),
          "usable %d, type %s kind %s %s" % (usable, typ, kind, msg))
    # themis.stream_loads: a backend sends a LOAD behind another on one connection, each with its
    # descriptor, and reads the replies afterwards: both answered, in order, and the connection still serves
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    for fd in (f8, g8):
        payload = EXEC.pack(0, 0, 1, 0, 0, 8, 0, 0, 0, 0) + SOURCE.pack(SRC_INLINE, 0, 1, 2, 3, 1, 0, 0, 0, 0, 0, 0, b"t")
        msg = HDR.pack(MAGIC, VERSION, T_LOAD, 1, 0, len(payload)) + payload
        n = socket.send_fds(s, [msg], [fd])
        s.sendall(msg[n:])
    replies = []
    for _ in range(3):
        if len(replies) == 2:
            s.sendall(HDR.pack(MAGIC, VERSION, T_STATUS, 0, 0, 0))
        head = recv_exact(s, HDR.size)
        if head is None:
            break
        _, _, typ, _, _, length = HDR.unpack(head)
        body = recv_exact(s, length) if length else b""
        replies.append((typ, ERROR_HEAD.unpack_from(body)[0] if typ == T_ERROR else None))
    s.close()
    want = (T_LOAD_OK, None) if usable else (T_ERROR, ERR_NO_DEVICE)
    check("two LOADs sent back to back on one connection are both answered, in order, and it still serves",
          replies[:2] == [want, want] and len(replies) == 3 and replies[2][0] == T_STATUS_OK, "replies %s" % replies)
    for fd in (f8, g8, h8):
        os.close(fd)

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
