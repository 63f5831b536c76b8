import os


def f():
    block = b"y" * (1 << 20)
    for _ in range(1024):  # 1 GB straight to fd 1
        os.write(1, block)
    return "written"
