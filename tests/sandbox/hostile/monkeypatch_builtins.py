import builtins


def f():
    builtins.len = lambda x: 42
    builtins.print = None
    builtins.sorted = reversed
    return len("abc")
