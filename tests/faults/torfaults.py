"""Fault tools for the private Tor network of tests/testnet: which relays carry a call, and the
faults themselves (SIGKILL, SIGSTOP/SIGCONT of a relay, killing an app instance's tor or the app,
suspending an app instance with its tor).

An app instance's tor (core/tor/TorLauncher) keeps its files in <data dir>/tor: `control-port`
(written by ControlPortWriteToFile) and `control_auth_cookie`; a second control connection next to
the app's own is allowed and changes nothing for the app. Only the Python standard library.

    torfaults.py circuits --network NET --data-dir APP [--data-dir APP2]   # relays of the call
    torfaults.py kill|stop|restart --network NET NODE [--seconds 5]
    torfaults.py bandwidths --network NET [--others KBPS] [NICK=KBPS ...]   # waits for the vote
"""

import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testnet"))
import testnet  # noqa: E402  (tests/testnet/testnet.py: Control, network state, restarts)

# Rendezvous circuits that carry a call's links, once joined (control-spec, CIRC HS_STATE).
CALL_CIRCUITS = {("HS_CLIENT_REND", "HSCR_JOINED"), ("HS_SERVICE_REND", "HSSR_JOINED")}


def parse_circuit(line):
    """One line of GETINFO circuit-status: id, status, path (list of (fingerprint, nickname)),
    and the keyword arguments (PURPOSE, HS_STATE, SOCKS_USERNAME, ...)."""
    fields = re.findall(r'(?:[^\s"]+="(?:[^"\\]|\\.)*")|\S+', line)
    circuit = {"id": fields[0], "status": fields[1], "path": [], "args": {}}
    for field in fields[2:]:
        if "=" in field and not field.startswith("$"):
            key, value = field.split("=", 1)
            circuit["args"][key] = value.strip('"')
        else:
            for hop in field.split(","):
                fingerprint, _, nick = hop.lstrip("$").partition("~")
                circuit["path"].append((fingerprint.upper(), nick))
    return circuit


def consensus_weights(lines):
    """Each node's weight in a consensus (GETINFO ns/all: the `w Bandwidth=` lines, KB/s), by
    nickname. Clients pick every hop of a path with a probability proportional to it."""
    weights, nick = {}, None
    for line in lines:
        line = line[len("ns/all="):] if line.startswith("ns/all=") else line
        if line.startswith("r "):
            nick = line.split()[1]
        elif line.startswith("w ") and nick:
            weights[nick] = int(re.search(r"Bandwidth=(\d+)", line).group(1))
    return weights


class AppTor:
    """The tor of one OnionVoice instance, found through the instance's data directory."""

    def __init__(self, data_dir):
        self.data_dir = os.path.abspath(data_dir)
        self.tor_dir = os.path.join(self.data_dir, "tor")

    def control(self):
        return testnet.Control(self.control_port(),
                               os.path.join(self.tor_dir, "control_auth_cookie"))

    def getinfo(self, key):
        control = self.control()
        try:
            return control.command(f"GETINFO {key}")
        finally:
            control.close()

    def circuits(self):
        lines = self.getinfo("circuit-status")
        # Data lines of the 250+ reply, then the final "OK" (a single-line reply holds one
        # circuit after "circuit-status=", or nothing).
        lines = [l[len("circuit-status="):] if l.startswith("circuit-status=") else l
                 for l in lines]
        return [parse_circuit(l) for l in lines if len(l.split()) >= 2]

    def consensus_weights(self):
        return consensus_weights(self.getinfo("ns/all"))

    def call_circuits(self):
        return [c for c in self.circuits() if c["status"] == "BUILT" and
                (c["args"].get("PURPOSE"), c["args"].get("HS_STATE")) in CALL_CIRCUITS]

    def control_port(self):
        with open(os.path.join(self.tor_dir, "control-port")) as f:
            match = re.search(r"PORT=[0-9.]+:(\d+)", f.read())
        if not match:
            raise RuntimeError(f"no control port in {self.tor_dir}/control-port")
        return int(match.group(1))

    def pid(self):
        """PID of the tor process of this instance (its command line names our torrc)."""
        torrc = os.path.join(self.tor_dir, "torrc")
        pids = [p for p, args in processes() if os.path.basename(args[0]) == "tor" and torrc in args]
        return pids[0] if pids else None


class Network:
    """The nodes of a running private network (tests/testnet/testnet.py up DIR)."""

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.nodes = {n.nick: n for n in testnet.load_state(self.root)["nodes"]}
        self.by_fingerprint = {n.fingerprint: n.nick for n in self.nodes.values() if n.fingerprint}

    def nick(self, hop):
        fingerprint, nick = hop
        return self.by_fingerprint.get(fingerprint, nick)

    def pid(self, nick):
        return testnet.read_pid(os.path.join(self.nodes[nick].dir, "pid"))

    def kill(self, nick):
        os.kill(self.pid(nick), signal.SIGKILL)

    def stop_for(self, nick, seconds):
        """SIGSTOP, then SIGCONT after `seconds`: the relay's sockets stay open but nothing moves."""
        pid = self.pid(nick)
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(seconds)
        finally:
            os.kill(pid, signal.SIGCONT)

    def restart(self, nick):
        """Starts a killed node again (as a child of the network's watchdog)."""
        if testnet.alive(self.pid(nick)):
            return self.pid(nick)
        return testnet.restart_node(self.root, nick)

    def relays(self):
        return [n for n in self.nodes.values() if n.kind == "relay"]

    def set_bandwidths(self, bandwidths, others, timeout=400):
        """Has the authorities vote these measured bandwidths (nick -> KB/s, `others` for the
        nodes not named) and waits for the consensus that carries them (the next vote, up to
        V3AuthVotingInterval away). For experiments: a network whose paths crowd onto a few
        relays, as with self-reported weights (README, Reliability)."""
        nodes = list(self.nodes.values())
        testnet.write_bandwidths(self.root, nodes, bandwidths, others)
        wanted = testnet.read_bandwidths(self.root)
        relays = {n.nick for n in self.relays()}
        auth = next(n for n in nodes if n.kind == "auth")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            control = testnet.Control.of(auth)
            try:
                weights = consensus_weights(control.command("GETINFO ns/all"))
            finally:
                control.close()
            if all(weights.get(n) == wanted[n] for n in relays if n in weights):
                return weights
            time.sleep(2)
        raise RuntimeError("no consensus with the new bandwidths")


class SuspendClock:
    """A model of a machine that suspends: its processes stop (SIGSTOP) and, with
    libonionvoice_suspendclock.so preloaded (suspendclock.c), their CLOCK_MONOTONIC stops too, as a
    real suspend stops it; CLOCK_BOOTTIME and the wall clock run on. SIGSTOP alone keeps the
    monotonic clock running, so an instance sees at its resume how long it was away, which after a
    real suspend it does not."""

    def __init__(self, library, path):
        if not os.path.exists(library):
            raise RuntimeError(f"{library} not found: build onionvoice_suspendclock first")
        self.library = library
        self.path = path
        self.behind_ns = 0
        self._write()

    def _write(self):
        with open(self.path, "wb") as f:
            f.write(self.behind_ns.to_bytes(8, sys.byteorder, signed=True))

    def env(self):
        """Environment of a process (and its children: its tor) that is to suspend."""
        return {"LD_PRELOAD": self.library, "ONIONVOICE_SUSPEND_CLOCK": self.path}

    def suspend(self, pids, seconds, while_asleep=None):
        """Stops `pids` for `seconds`, runs `while_asleep` (what the network does meanwhile), and
        resumes them with their monotonic clocks where they stopped. Returns the resume time."""
        stopped = time.monotonic()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            if while_asleep:
                while_asleep()
            time.sleep(max(0.0, seconds - (time.monotonic() - stopped)))
        finally:
            # The same file is mapped by every process of the instance: rewritten in place.
            self.behind_ns += int((time.monotonic() - stopped) * 1e9)
            with open(self.path, "r+b") as f:
                f.write(self.behind_ns.to_bytes(8, sys.byteorder, signed=True))
            for pid in reversed(pids):
                os.kill(pid, signal.SIGCONT)
        return time.monotonic()


def cut_connections(pid, keep_ports=()):
    """Aborts both ends of every TCP connection of process `pid` (local ports in `keep_ports`
    excepted): what the network does to a machine asleep long enough, whose peers time out (a
    relay closes the connection) or whose NAT mapping or Wi-Fi is gone. Needs the kernel's
    SOCK_DESTROY (`ss -K`) and root. Returns how many connections were cut."""
    out = subprocess.run(["ss", "-tnpH"], capture_output=True, text=True, check=True).stdout
    ports = {int(line.split()[3].rsplit(":", 1)[1]) for line in out.splitlines()
             if f"pid={pid}," in line}
    ports -= set(keep_ports)
    for port in ports:
        subprocess.run(["ss", "-K", "-tnH", "(", "sport", "=", f":{port}", "or", "dport", "=",
                        f":{port}", ")"], capture_output=True, check=True)
    return len(ports)


def relay_load(network, circuits):
    """How many of the given circuits pass through each node of the network."""
    load = collections.Counter()
    for circuit in circuits:
        for nick in {network.nick(hop) for hop in circuit["path"]}:
            load[nick] += 1
    return load


def entry_load(network, circuits):
    """How many of the given circuits enter the network at each node (the caller's guards)."""
    return collections.Counter(network.nick(c["path"][0]) for c in circuits if c["path"])


def processes():
    """(pid, argv) of every process of this user that can be read."""
    result = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        if args and testnet.alive(int(entry)):
            result.append((int(entry), args))
    return result


def processes_mentioning(paths):
    """Processes whose command line names one of `paths` (a data dir, a torrc): [(pid, name)]."""
    paths = [os.path.abspath(p) for p in paths]
    return [(pid, os.path.basename(args[0])) for pid, args in processes()
            if any(p in a for p in paths for a in args)]


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("circuits", help="relays carrying the call's circuits of app instances")
    p.add_argument("--network", required=True)
    p.add_argument("--data-dir", action="append", required=True)
    for name in ("kill", "stop", "restart"):
        p = sub.add_parser(name)
        p.add_argument("--network", required=True)
        p.add_argument("node")
        p.add_argument("--seconds", type=float, default=5.0)
    p = sub.add_parser("bandwidths", help="the measured bandwidths the authorities vote (KB/s); "
                       "waits for the consensus that carries them")
    p.add_argument("--network", required=True)
    p.add_argument("--others", type=int, default=testnet.MEASURED_BANDWIDTH,
                   help="for the nodes not named")
    p.add_argument("bandwidths", nargs="*", metavar="NICK=KBPS")
    args = parser.parse_args()
    network = Network(args.network)
    if args.command == "bandwidths":
        wanted = {nick: int(bw) for nick, bw in (a.split("=", 1) for a in args.bandwidths)}
        print(json.dumps(network.set_bandwidths(wanted, args.others), indent=1))
        return
    if args.command == "circuits":
        report = {}
        for data_dir in args.data_dir:
            circuits = AppTor(data_dir).call_circuits()
            report[data_dir] = {"circuits": len(circuits),
                                "relays": dict(relay_load(network, circuits).most_common()),
                                "entries": dict(entry_load(network, circuits).most_common())}
        print(json.dumps(report, indent=1))
    elif args.command == "kill":
        network.kill(args.node)
    elif args.command == "stop":
        network.stop_for(args.node, args.seconds)
    else:
        print(network.restart(args.node))


if __name__ == "__main__":
    main()
