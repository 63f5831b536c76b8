import os
import signal


def f(pid):
    os.kill(pid, signal.SIGTERM)
    return "sent"
