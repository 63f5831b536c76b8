import os


def f(bait):
    os.symlink(bait, "link.txt")  # the link itself is inside the sandbox...
    with open("link.txt", "w") as fh:  # ...but writing through it is not
        fh.write("overwritten")
    return "written"
