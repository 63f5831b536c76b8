"""Constants shared by the worker's modules (names the program sees, signal numbers, frame
layouts).  Standard library only (see ``codemorph/sandbox/_worker.py``).
"""

import fcntl
import hashlib
import json
import signal
import struct
import time


PROGRAM_FILE = "<program>"
#: ``__name__`` of the program's module: no harness uses it, so a result, output or message
#: that shows it (``<class '__codemorph_program__.C'>``) shows the sandbox, not the program
MODULE_NAME = "__codemorph_program__"
#: what a result, output or exception message must not show (``_environment_shown``)
ENVIRONMENT_MARKS = ((MODULE_NAME, "the sandbox's module name"), (PROGRAM_FILE, "the sandbox's file name"))
SIGALRM_NUMBER = int(signal.SIGALRM)
ITIMER_REAL_NUMBER = int(signal.ITIMER_REAL)
SIGPROF_NUMBER = int(signal.SIGPROF)
ITIMER_PROF_NUMBER = int(signal.ITIMER_PROF)
MISSING = object()
PACK = "__codemorph_pack_arguments__"


def pack_arguments(*a, **k):
    return a, k
HDR = struct.Struct(">I")
MAX_MSG = 1 << 30
STACK_WANTED = 512 * 1024 * 1024  # bytes of C stack for deep (C-level) recursion
REEXEC_FLAG = "CODEMORPH_SANDBOX_REEXEC"

perf = time.perf_counter
mono = time.monotonic
IDX = struct.Struct(">I")
#: the head of a result frame as the child writes it and the zygote forwards it to the host
#: unchanged: length, ``b"R"``, batch id, request index (``child._result_frame``)
RESULT_HEAD = struct.Struct(">IcII")
IDX2 = struct.Struct(">II")
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
#: seconds between the zygote's looks at a running child's pipe (the first; the interval
#: doubles up to POLL_MAX while the child neither syncs nor fills much of the pipe)
POLL = 0.004
POLL_MAX = 0.032
MARK = struct.Struct("=QB")  # progress counter, phase (0 running, 1 post-processing, SELF_KILLED)
#: the phase a child marks right before the program sends itself SIGKILL (``os.kill``), so
#: that the zygote tells that death from the out-of-memory killer's
SELF_KILLED = 2
json_dumps = json.dumps
json_loads = json.loads
sha256_new = hashlib.sha256
