class Noisy:
    def __del__(self):
        raise RuntimeError("from __del__")


def f():
    Noisy()
    return 1
