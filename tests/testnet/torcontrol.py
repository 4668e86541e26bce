"""Talking to the running tors of the private test network (testnet.py): a minimal control-port
client, process checks, and the questions `up` asks the authorities and clients. Python standard
library only."""

import os
import socket
import time


class Control:
    """Minimal synchronous control-port client (cookie authentication, GETINFO)."""

    def __init__(self, port, cookie_file):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        with open(cookie_file, "rb") as f:
            self.command("AUTHENTICATE " + f.read().hex())

    @staticmethod
    def of(node):
        return Control(node.control_port, os.path.join(node.dir, "control_auth_cookie"))

    def close(self):
        self.sock.close()

    def _line(self):
        while b"\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("control connection closed")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line.decode("utf-8", "replace")

    def command(self, text):
        self.sock.sendall(text.encode() + b"\r\n")
        lines = []
        while True:
            line = self._line()
            if line.startswith("650"):
                continue
            if not line.startswith("2"):
                raise RuntimeError(f"{text.split()[0]}: {line}")
            if line[3] == "+":
                while (data := self._line()) != ".":
                    lines.append(data)
            else:
                lines.append(line[4:])
            if line[3] == " ":
                return lines


def read_pid(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def alive(pid):
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie that its parent has not reaped yet counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except (OSError, RuntimeError, ConnectionError) as e:
            last_error = e
        time.sleep(0.25)
    raise RuntimeError(f"timed out waiting for {what} (last error: {last_error})")


def consensus_complete(node, expected):
    control = Control.of(node)
    try:
        routers = [l for l in control.command("GETINFO ns/all") if l.startswith("r ")]
        mds = [l for l in control.command("GETINFO md/all") if l.startswith("onion-key")]
        return len(routers) >= expected and len(mds) >= expected
    finally:
        control.close()


def client_ready(node):
    control = Control.of(node)
    try:
        phase = control.command("GETINFO status/bootstrap-phase")[0]
        return "PROGRESS=100" in phase
    finally:
        control.close()


def listening(port):
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def descriptors_held(auth):
    """Nicknames of the nodes whose server descriptor this authority holds (it votes on those)."""
    control = Control.of(auth)
    try:
        return {l.split()[1] for l in control.command("GETINFO desc/all-recent")
                if l.startswith("router ")}
    finally:
        control.close()
