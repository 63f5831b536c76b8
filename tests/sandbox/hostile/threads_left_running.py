import threading


def spin():
    while True:
        pass


def f():
    threading.Thread(target=spin, daemon=True).start()
    return "started"
