#!/usr/bin/env python3
"""Checks libonionvoice_tor_nodelay.so: run under LD_PRELOAD, a loopback TCP connection must have
TCP_NODELAY on both ends (connect and accept go through the library); without it, off.

    check_tor_nodelay.py LIB
"""
import os
import socket
import subprocess
import sys

PROBE = """
import socket
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
client = socket.create_connection(server.getsockname())
accepted, _ = server.accept()
print(client.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY),
      accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
"""


def probe(env):
    return subprocess.run([sys.executable, "-c", PROBE], env=env, check=True, capture_output=True,
                          text=True).stdout.split()


def main():
    lib = os.path.abspath(sys.argv[1])
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    without = probe(env)
    with_lib = probe(dict(env, LD_PRELOAD=lib))
    print(f"TCP_NODELAY connect/accept: without {without}, with the library {with_lib}")
    # The control shows the probe can see Nagle on, so "on" with the library is its doing.
    return 0 if without == ["0", "0"] and with_lib == ["1", "1"] else 1


if __name__ == "__main__":
    sys.exit(main())
