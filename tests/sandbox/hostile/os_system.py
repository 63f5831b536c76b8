import os


def f(bait):
    return os.system("rm -f " + bait)
