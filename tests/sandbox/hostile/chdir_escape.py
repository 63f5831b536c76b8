import os


def f(bait):
    # relative paths are resolved against the current directory, wherever it is
    os.chdir(os.path.dirname(bait))
    with open(os.path.basename(bait), "w") as fh:
        fh.write("overwritten")
    return "written"
