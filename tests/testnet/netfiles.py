"""The files of a private Tor network (testnet.py): its nodes and their loopback ports, the keys
(tor-gencert), each node's torrc, the authorities' bandwidth file and the network's state in
DIR/network.json. testnet.py runs the network; this module only writes and reads what it runs on.
Only the Python standard library is used.
"""

import json
import os
import random
import socket
import subprocess
import time

AUTHORITIES = 3
# The authorities' first vote is held by a 30-minute initial voting interval whose next boundary
# is at least 5 minutes away, then released with these (a vote within 5 s).
HELD_INITIAL_INTERVAL = 1800
RELEASED_INITIAL_INTERVAL = 5
VOTING_INTERVAL = 300


def free_port(taken):
    """A port below the kernel's ephemeral range, so sockets of running tests cannot take it."""
    while True:
        port = random.randint(10000, 30000)
        if port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        taken.add(port)
        return port


class Node:
    def __init__(self, root, kind, index, taken):
        self.kind = kind  # "auth", "relay" or "client"
        self.nick = f"{kind}{index}"
        self.dir = os.path.join(root, self.nick)
        self.or_port = free_port(taken) if kind != "client" else None
        self.dir_port = free_port(taken) if kind == "auth" else None
        self.socks_port = free_port(taken) if kind == "client" else None
        self.control_port = free_port(taken)
        self.fingerprint = None
        self.v3ident = None

    def to_json(self):
        return {k: v for k, v in self.__dict__.items()}

    @staticmethod
    def from_json(data):
        node = Node.__new__(Node)
        node.__dict__.update(data)
        return node


def generate(root, relays, clients):
    os.makedirs(root, mode=0o700)
    empty = os.path.join(root, "empty")
    open(empty, "w").close()
    taken = set()
    nodes = [Node(root, "auth", i, taken) for i in range(AUTHORITIES)]
    nodes += [Node(root, "relay", i, taken) for i in range(relays)]
    nodes += [Node(root, "client", i, taken) for i in range(clients)]

    procs = []
    for node in nodes:
        os.makedirs(os.path.join(node.dir, "keys"), mode=0o700)
        if node.kind == "auth":
            keys = os.path.join(node.dir, "keys")
            procs.append(subprocess.Popen(
                ["tor-gencert", "--create-identity-key", "-m", "12",
                 "-a", f"127.0.0.1:{node.dir_port}",
                 "-i", f"{keys}/authority_identity_key", "-s", f"{keys}/authority_signing_key",
                 "-c", f"{keys}/authority_certificate", "--passphrase-fd", "0"],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            procs[-1].stdin.write(b"\n")
            procs[-1].stdin.close()
        if node.kind != "client":
            procs.append(subprocess.Popen(
                ["tor", "--ignore-missing-torrc", "-f", empty, "--defaults-torrc", empty,
                 "--list-fingerprint", "--DataDirectory", node.dir,
                 "--ORPort", f"127.0.0.1:{node.or_port}", "--Log", "err stderr"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for proc in procs:
        if proc.wait() != 0:
            raise RuntimeError(f"key generation failed: {proc.args[0]} exited {proc.returncode}")

    for node in nodes:
        if node.kind == "client":
            continue
        with open(os.path.join(node.dir, "fingerprint")) as f:
            node.fingerprint = f.read().split()[1]
        if node.kind == "auth":
            with open(os.path.join(node.dir, "keys", "authority_certificate")) as f:
                for line in f:
                    if line.startswith("fingerprint "):
                        node.v3ident = line.split()[1]
    return nodes


def common_lines(root, nodes):
    auths = [n for n in nodes if n.kind == "auth"]
    lines = ["TestingTorNetwork 1", "PathsNeededToBuildCircuits 0.67",
             f"GeoIPFile {root}/empty", f"GeoIPv6File {root}/empty"]
    lines += [f"DirAuthority {a.nick} orport={a.or_port} v3ident={a.v3ident} "
              f"127.0.0.1:{a.dir_port} {a.fingerprint}" for a in auths]
    return lines


def client_lines(root, nodes):
    """Options an app's tor needs to use this network (on top of the app's own torrc)."""
    return common_lines(root, nodes) + [
        "UseEntryGuards 0", "LearnCircuitBuildTimeout 0", "CircuitBuildTimeout 30",
        "CircuitPadding 0", "ConnectionPadding 0", "SafeLogging 0"]


def voting_options(held, now):
    """The authorities' first-vote timing. Held: the next boundary of a 30-minute initial interval
    (TestingV3AuthVotingStartOffset moves it, by at most V3AuthVotingInterval) is at least 5
    minutes away, so no authority votes before `up` has checked that all of them hold every
    node's descriptor. Released: 5-second initial interval, i.e. the first vote within 5 s.
    Only the first vote's time changes: the first consensus already has the 5-minute interval,
    from which tor derives the onion-service time periods and shared-random rounds (changing
    V3AuthVotingInterval itself at run time moved those and broke descriptor lookups). An offset
    of 0 or 300 keeps the later votes on the same 5-minute grid either way."""
    if not held:
        return {"TestingV3AuthInitialVotingInterval": RELEASED_INITIAL_INTERVAL,
                "TestingV3AuthVotingStartOffset": 0}
    until = {offset: (offset - int(now)) % HELD_INITIAL_INTERVAL or HELD_INITIAL_INTERVAL
             for offset in (0, VOTING_INTERVAL)}
    return {"TestingV3AuthInitialVotingInterval": HELD_INITIAL_INTERVAL,
            "TestingV3AuthVotingStartOffset": max(until, key=until.get)}


# Every relay's bandwidth as the real network's bandwidth scanners would measure it (KB/s): the
# same for all, so clients spread their paths over the relays as they do over the real network's
# thousands. Without it the consensus weights are what each relay reports having carried: 0 for
# all in the first consensus (tor then picks uniformly), but from the next vote on a few KB/s for
# the relays that happened to carry bootstrap traffic and 0 for the rest (measured: authorities
# 10-15, seven relays 1-4, five 0; after calls 1-116), and tor never picks a node of weight 0
# while others weigh more. Paths then crowd onto a few relays: tests/faults killed one that
# carried 20 of a call's 24 circuits, and with it gone tor kept building every new circuit
# through it, so no link came back (README, Reliability). The authorities do not apply these
# lines to themselves (they keep their own 0-20 KB/s), so paths use the plain relays.
MEASURED_BANDWIDTH = 1000


def write_bandwidths(root, nodes, bandwidths=None, default=MEASURED_BANDWIDTH):
    """The authorities' V3BandwidthsFile (bandwidth-file-spec 1.0.0), read at every vote; a node
    not in `bandwidths` (nick -> KB/s) gets `default`."""
    path = os.path.join(root, "bandwidths")
    with open(path + ".new", "w") as f:
        f.write(f"{int(time.time())}\n")
        for node in nodes:
            if node.fingerprint:
                bw = (bandwidths or {}).get(node.nick, default)
                f.write(f"node_id=${node.fingerprint} bw={bw} nick={node.nick}\n")
    os.replace(path + ".new", path)
    return path


def read_bandwidths(root):
    """The measured bandwidths the authorities vote (nick -> KB/s); empty without a file."""
    try:
        with open(os.path.join(root, "bandwidths")) as f:
            lines = f.read().splitlines()[1:]
    except FileNotFoundError:
        return {}
    fields = [dict(kv.split("=", 1) for kv in line.split()) for line in lines]
    return {f["nick"]: int(f["bw"]) for f in fields}


def write_torrcs(root, state, owner_pid, vote_held):
    nodes = state["nodes"]
    auths = [n for n in nodes if n.kind == "auth"]
    bandwidths = os.path.join(root, "bandwidths")
    if not os.path.exists(bandwidths):
        write_bandwidths(root, nodes)
    for node in nodes:
        lines = [f"Nickname {node.nick}", f"DataDirectory {node.dir}",
                 f"PidFile {node.dir}/pid", f"Log notice file {node.dir}/notice.log",
                 "SafeLogging 0", "ShutdownWaitLength 0", "RunAsDaemon 0",
                 f"ControlPort 127.0.0.1:{node.control_port}", "CookieAuthentication 1",
                 f"__OwningControllerProcess {owner_pid}"]
        if node.nick in state.get("info_log", ()):
            lines += [f"Log info file {node.dir}/info.log"]
        if node.kind == "client":
            lines += client_lines(root, nodes)
            lines += [f"SocksPort 127.0.0.1:{node.socks_port}"]
        else:
            lines += common_lines(root, nodes)
            lines += [f"ORPort 127.0.0.1:{node.or_port}", "Address 127.0.0.1", "SocksPort 0",
                      "AssumeReachable 1", "ExitRelay 0", "ExitPolicy reject *:*"]
        if node.kind == "auth":
            # A new consensus only every 5 minutes: one every 10 s stalled every circuit of a
            # call for 0.2-2 s each time it was published and fetched (tests/faults measured
            # 1.6-10 % late frames in unimpaired 40-s calls, 0.1 % with a 5-minute interval); the
            # real network publishes one an hour. The first vote is held (see voting_options) so
            # that it cannot leave out a node, which would then wait 5 minutes for the next one.
            lines += [f"DirPort 127.0.0.1:{node.dir_port}", "AuthoritativeDirectory 1",
                      "V3AuthoritativeDirectory 1", "ContactInfo onionvoice-testnet@localhost",
                      "TestingV3AuthInitialVoteDelay 2", "TestingV3AuthInitialDistDelay 2",
                      f"V3AuthVotingInterval {VOTING_INTERVAL}", "V3AuthVoteDelay 2",
                      "V3AuthDistDelay 2", "V3AuthNIntervalsValid 2",
                      "TestingDirAuthVoteGuard *",
                      "TestingDirAuthVoteHSDir " + ",".join(a.fingerprint for a in auths)]
            lines += [f"{k} {v}" for k, v in voting_options(vote_held, time.time()).items()]
        elif node.kind == "relay":
            lines += ["DirCache 0"]
        if node.kind == "auth":
            lines += [f"V3BandwidthsFile {bandwidths}"]
        with open(os.path.join(node.dir, "torrc.new"), "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(os.path.join(node.dir, "torrc.new"), os.path.join(node.dir, "torrc"))


def load_state(root):
    with open(os.path.join(root, "network.json")) as f:
        state = json.load(f)
    state["nodes"] = [Node.from_json(n) for n in state["nodes"]]
    return state


def save_state(root, state):
    data = dict(state)
    data["nodes"] = [n.to_json() for n in state["nodes"]]
    with open(os.path.join(root, "network.json"), "w") as f:
        json.dump(data, f, indent=1)
