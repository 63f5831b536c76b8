def f(n=0):
    return f(n + 1) + 1
