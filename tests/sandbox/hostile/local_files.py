import os


def f():
    # files in the sandbox's own temporary directory are fine
    with open("scratch.txt", "w") as fh:
        fh.write("hello")
    with open("scratch.txt") as fh:
        text = fh.read()
    os.remove("scratch.txt")
    return text
