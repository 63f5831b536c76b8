def f():
    line = "x" * (1 << 20)
    for _ in range(1024):  # 1 GB
        print(line)
    return "printed"
