"""pgwire.py — a small PostgreSQL client (frontend/backend protocol 3.0, simple query protocol),
Python standard library only, so that the fuzzer runs where no driver is installed (the GPU host).

    c = Conn(host='/tmp/sockdir' or 'localhost', port=5432, user='u', dbname='d', password=None)
    r = c.query("SELECT 1 AS x")     # -> Result(columns, types, rows, error, notices, tag)
    r.rows == [('1',)]               # values are text (None for NULL), exactly as psql would print them
    r.error                          # None, or dict of error fields: 'C' SQLSTATE, 'M' message, 'D' detail ...

Authentication: trust, password, md5, SCRAM-SHA-256.  A query that runs longer than the client
timeout is cancelled (CancelRequest); a lost connection raises ConnectionLost.
"""
import base64
import hashlib
import hmac
import os
import socket
import struct
import time


class ConnectionLost(Exception):
    pass


class QueryTimeout(Exception):
    pass


class Result:
    __slots__ = ("columns", "types", "rows", "error", "notices", "tag")

    def __init__(self):
        self.columns = []
        self.types = []
        self.rows = []
        self.error = None
        self.notices = []
        self.tag = None

    @property
    def ok(self):
        return self.error is None

    def errtext(self):
        if self.error is None:
            return None
        return "%s %s" % (self.error.get("C", "?"), self.error.get("M", ""))


def _parse_fields(body):
    out = {}
    i = 0
    while i < len(body) and body[i] != 0:
        code = chr(body[i])
        j = body.index(b"\0", i + 1)
        out[code] = body[i + 1:j].decode("utf-8", "replace")
        i = j + 1
    return out


class Conn:
    def __init__(self, host, port, user, dbname, password=None, timeout=120.0, connect_timeout=30.0):
        self.host, self.port, self.user, self.dbname, self.password = host, int(port), user, dbname, password
        self.timeout = timeout
        self.pid = None
        self.key = None
        self.sock = self._open(connect_timeout)
        self._buf = bytearray()
        self._pos = 0
        params = {"user": user, "database": dbname, "client_encoding": "UTF8",
                  "application_name": "themis-fuzz", "DateStyle": "ISO, MDY", "extra_float_digits": "1"}
        body = struct.pack("!i", 196608)
        for k, v in params.items():
            body += k.encode() + b"\0" + v.encode() + b"\0"
        body += b"\0"
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        self._startup()
        self.sock.settimeout(timeout)

    # ---------------------------------------------------------------- transport
    def _open(self, connect_timeout):
        if self.host.startswith("/"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(connect_timeout)
            s.connect(os.path.join(self.host, ".s.PGSQL.%d" % self.port))
        else:
            s = socket.create_connection((self.host, self.port), timeout=connect_timeout)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def _fill(self, n):
        """make sure n unread bytes are buffered (socket.timeout may escape: nothing is lost)"""
        while len(self._buf) - self._pos < n:
            try:
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                raise
            except OSError as e:
                raise ConnectionLost(str(e))
            if not chunk:
                raise ConnectionLost("server closed the connection")
            self._buf += chunk

    def _msg(self):
        if self._pos > (1 << 20) or (self._pos and self._pos == len(self._buf)):
            del self._buf[:self._pos]
            self._pos = 0
        self._fill(5)
        p = self._pos
        t = bytes(self._buf[p:p + 1])
        (ln,) = struct.unpack_from("!i", self._buf, p + 1)
        self._fill(1 + ln)
        body = bytes(self._buf[p + 5:p + 1 + ln])
        self._pos = p + 1 + ln
        return t, body

    def _send(self, t, body):
        try:
            self.sock.sendall(t + struct.pack("!i", len(body) + 4) + body)
        except OSError as e:
            raise ConnectionLost(str(e))

    # ---------------------------------------------------------------- startup / auth
    def _startup(self):
        scram = None
        while True:
            t, body = self._msg()
            if t == b"R":
                (code,) = struct.unpack("!i", body[:4])
                if code == 0:
                    continue
                if code == 3:
                    self._send(b"p", (self.password or "").encode() + b"\0")
                elif code == 5:
                    salt = body[4:8]
                    inner = hashlib.md5(((self.password or "") + self.user).encode()).hexdigest()
                    outer = hashlib.md5(inner.encode() + salt).hexdigest()
                    self._send(b"p", b"md5" + outer.encode() + b"\0")
                elif code == 10:
                    mechs = body[4:].split(b"\0")
                    if b"SCRAM-SHA-256" not in mechs:
                        raise ConnectionLost("no supported SASL mechanism: %r" % mechs)
                    nonce = base64.b64encode(os.urandom(18)).decode()
                    first_bare = "n=,r=" + nonce
                    msg = ("n,," + first_bare).encode()
                    self._send(b"p", b"SCRAM-SHA-256\0" + struct.pack("!i", len(msg)) + msg)
                    scram = (nonce, first_bare)
                elif code == 11:
                    nonce, first_bare = scram
                    server_first = body[4:].decode()
                    attrs = dict(kv.split("=", 1) for kv in server_first.split(","))
                    rnonce, salt, iters = attrs["r"], base64.b64decode(attrs["s"]), int(attrs["i"])
                    salted = hashlib.pbkdf2_hmac("sha256", (self.password or "").encode(), salt, iters)
                    ckey = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
                    skey = hashlib.sha256(ckey).digest()
                    final_wo = "c=biws,r=" + rnonce
                    auth_msg = (first_bare + "," + server_first + "," + final_wo).encode()
                    sig = hmac.new(skey, auth_msg, hashlib.sha256).digest()
                    proof = bytes(a ^ b for a, b in zip(ckey, sig))
                    final = (final_wo + ",p=" + base64.b64encode(proof).decode()).encode()
                    self._send(b"p", final)
                elif code == 12:
                    continue
                else:
                    raise ConnectionLost("unsupported authentication request %d" % code)
            elif t == b"E":
                f = _parse_fields(body)
                raise ConnectionLost("connection refused: %s %s" % (f.get("C"), f.get("M")))
            elif t == b"K":
                self.pid, self.key = struct.unpack("!ii", body[:8])
            elif t == b"Z":
                return
            # S (parameter status), N (notice): ignored

    # ---------------------------------------------------------------- queries
    def cancel(self):
        if self.pid is None:
            return
        try:
            s = self._open(10.0)
            s.sendall(struct.pack("!iiii", 16, 80877102, self.pid, self.key))
            s.close()
        except OSError:
            pass

    def query(self, sql, timeout=None):
        """Run sql (one or more statements, simple protocol). The result of the last statement that
        returned rows (or the first error) is returned.  Raises QueryTimeout (after cancelling and
        draining) when the server does not answer within timeout seconds, ConnectionLost when the
        connection breaks (e.g. the backend crashed)."""
        self._send(b"Q", sql.encode("utf-8") + b"\0")
        res = Result()
        deadline = time.monotonic() + (timeout or self.timeout)
        cancelled = False
        self.sock.settimeout(1.0)
        try:
            while True:
                try:
                    t, body = self._msg()
                except socket.timeout:
                    if time.monotonic() > deadline:
                        if cancelled:
                            raise QueryTimeout("no answer even after cancel")
                        self.cancel()
                        cancelled = True
                        deadline = time.monotonic() + 30.0
                    continue
                if t == b"D":
                    (n,) = struct.unpack("!h", body[:2])
                    i = 2
                    row = []
                    for _ in range(n):
                        (ln,) = struct.unpack("!i", body[i:i + 4])
                        i += 4
                        if ln < 0:
                            row.append(None)
                        else:
                            row.append(body[i:i + ln].decode("utf-8", "replace"))
                            i += ln
                    res.rows.append(tuple(row))
                elif t == b"T":
                    (n,) = struct.unpack("!h", body[:2])
                    i = 2
                    res.columns, res.types, res.rows = [], [], []
                    for _ in range(n):
                        j = body.index(b"\0", i)
                        res.columns.append(body[i:j].decode())
                        i = j + 1
                        _tab, _att, typ, _len, _mod, _fmt = struct.unpack("!ihihih", body[i:i + 18])
                        res.types.append(typ)
                        i += 18
                elif t == b"C":
                    res.tag = body[:-1].decode()
                elif t == b"E":
                    if res.error is None:
                        res.error = _parse_fields(body)
                elif t == b"N":
                    res.notices.append(_parse_fields(body))
                elif t == b"Z":
                    break
                # I (empty query), S, A (notification): ignored
        finally:
            try:
                self.sock.settimeout(self.timeout)
            except OSError:
                pass
        if cancelled and res.error is not None and res.error.get("C") == "57014":
            raise QueryTimeout("cancelled after timeout")
        return res

    def close(self):
        try:
            self._send(b"X", b"")
        except Exception:
            pass
        try:
            self.sock.close()
        except Exception:
            pass
