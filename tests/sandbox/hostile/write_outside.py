def f(bait):
    with open(bait, "w") as fh:
        fh.write("overwritten by a benchmark program")
    return "written"
