"""The host <-> zygote wire format: 4-byte big-endian length-prefixed JSON messages.  Standard
library only (see ``codemorph/sandbox/_worker.py``).
"""

import os

from .common import HDR, MAX_MSG, json_dumps, json_loads


def read_exact(fd, n):
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_msg(fd):
    """Read one length-prefixed JSON message from ``fd``; ``None`` at end of file."""
    hdr = read_exact(fd, 4)
    if hdr is None:
        return None
    (n,) = HDR.unpack(hdr)
    if n > MAX_MSG:
        raise ValueError("message too long")
    data = read_exact(fd, n)
    if data is None:
        return None
    return json_loads(data)


def encode_outcome(out):
    """An outcome dict as compact ASCII JSON bytes."""
    return json_dumps(out, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def encode_msg(obj):
    data = json_dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return HDR.pack(len(data)) + data


def write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
