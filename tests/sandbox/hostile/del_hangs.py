class Stuck:
    def __del__(self):
        while True:
            pass


def f():
    Stuck()
    return 1
