def f():
    return list(range(300_000))  # repr: 2.3 MB
