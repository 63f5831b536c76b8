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


def _outcome_encoder():
    """JSON's C encoder (``ensure_ascii``, compact separators) made once, or ``None`` where
    the C accelerator is missing: ``json.dumps`` makes a ``JSONEncoder`` and a C encoder per
    call, half the cost of encoding a typical outcome.  No circular-reference check: an
    outcome is a tree the harness built (fingerprints mark a value's cycles, they have none)."""
    try:
        from json import encoder
        if encoder.c_make_encoder is None:
            return None
        return encoder.c_make_encoder(None, encoder.JSONEncoder().default, encoder.encode_basestring_ascii,
                                      None, ":", ",", False, False, True)
    except Exception:  # pragma: no cover - an unusual json module
        return None


_ENCODE = _outcome_encoder()


def encode_outcome(out):
    """An outcome dict as compact ASCII JSON bytes (what ``json.dumps(out, ensure_ascii=True,
    separators=(",", ":"))`` gives)."""
    if _ENCODE is None:
        return json_dumps(out, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return "".join(_ENCODE(out, 0)).encode("ascii")


def encode_msg(obj):
    data = json_dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return HDR.pack(len(data)) + data


def write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
