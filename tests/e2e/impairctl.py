#!/usr/bin/env python3
"""Sends one command to the control socket of `onionvoice-cli call --impair` and prints the reply.

    impairctl.py SOCKET break 0 1 2 3 4 5 [for SECONDS]
    impairctl.py SOCKET delay SLOT MS SECONDS
    impairctl.py SOCKET stats
Exit status 1 when the relay answers with an error.
"""
import socket
import sys


def send(path, command):
    """One command line to the relay; its one-line reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(path)
        s.sendall((command + "\n").encode())
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply.decode().strip()


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    text = send(sys.argv[1], " ".join(sys.argv[2:]))
    print(text)
    return 1 if text.startswith("error") else 0


if __name__ == "__main__":
    sys.exit(main())
