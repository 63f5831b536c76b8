import os


def f(bait_dir):
    with open(os.path.join(bait_dir, "new-file.txt"), "x") as fh:
        fh.write("x")
    return "created"
