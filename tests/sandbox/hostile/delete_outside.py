import os


def f(bait):
    os.remove(bait)
    return "deleted"
