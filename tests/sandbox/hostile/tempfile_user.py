import os
import tempfile


def f():
    # temporary files land in the sandbox's own directory
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.txt")
        with open(path, "w") as fh:
            fh.write("ok")
        with open(path) as fh:
            return fh.read()
