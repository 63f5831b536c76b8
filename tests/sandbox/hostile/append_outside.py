import os


def f(bait):
    fd = os.open(bait, os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"appended")
    return "appended"
