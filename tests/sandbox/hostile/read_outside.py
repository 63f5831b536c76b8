def f(bait):
    # a file that existed before the run is the machine's, not the program's
    with open(bait) as fh:
        return fh.read()
