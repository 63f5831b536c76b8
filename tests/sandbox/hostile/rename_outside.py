import os


def f(bait):
    os.rename(bait, "stolen.txt")
    return "moved"
