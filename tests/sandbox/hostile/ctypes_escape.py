import ctypes


def f():
    libc = ctypes.CDLL(None)
    return libc.fork()
