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


#: keys of an outcome left out of its encoding when they hold this value: the host's
#: ``Outcome.from_wire`` reads a missing key as the same value (a typical outcome has a
#: dozen of them; leaving them out makes the encoding, the pipe and the host's decoding shorter)
_OMITTED = (("value_repr", None), ("fingerprint", None), ("literal_ok", False), ("exception", None),
            ("args_fingerprint", None), ("stdout", ""), ("output_matches", None), ("lines", None),
            ("arcs", None), ("types", None), ("output_truncated", False), ("repr_error", None), ("note", None))


def encode_outcome(out):
    """An outcome dict as compact ASCII JSON bytes, without the keys of :data:`_OMITTED` that
    hold their default (``None``, ``False`` or ``""``, compared by identity or as a str)."""
    for k, default in _OMITTED:
        v = out.get(k, out)
        if v is default or (v.__class__ is str and v == default):
            del out[k]
    return json_dumps(out, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def encode_msg(obj):
    data = json_dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return HDR.pack(len(data)) + data


def write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
