class Bad:
    def __repr__(self):
        raise ValueError("no repr for you")


def f():
    return Bad()
