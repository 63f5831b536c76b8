def f():
    hog = []
    while True:
        hog.append(bytearray(16 * 1024 * 1024))
