import os


def f():
    # bounded on purpose: even without containment it could start at most 32 processes,
    # each of which exits at once
    pids = []
    for _ in range(32):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        pids.append(pid)
    return len(pids)
