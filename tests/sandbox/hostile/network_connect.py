import socket


def f(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=1)
    s.sendall(b"hello from the sandbox")
    return "connected"
