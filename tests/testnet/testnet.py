#!/usr/bin/env python3
"""A private Tor network on 127.0.0.1 for OnionVoice's integration tests and demos.

    testnet.py up DIR [--relays N] [--clients N] [--watch-pid PID] [--lifetime SECONDS]
                      [--ready-timeout SECONDS] [--early-relay] [--late-relay SECONDS]
    testnet.py down DIR
    testnet.py status DIR
    testnet.py restart DIR NODE
    testnet.py check-clean PATH...

`up` generates keys (tor-gencert) and torrcs for 3 directory authorities and N relays
(TestingTorNetwork), starts the authorities, then the relays, holds the authorities' first vote
until each of them holds every node's descriptor (a node whose upload was lost is started again),
then lets them vote, waits until the consensus lists every relay with its microdescriptor, starts
the optional client instances and prints what an app instance needs (DIR/client.torrc holds the
torrc lines of a client of this network). A new consensus follows every 5 minutes.

Every tor is the child of one watchdog process (`testnet.py _watchdog`, its own session) and is
started with __OwningControllerProcess set to the watchdog's PID, so the network goes away when:
  - `down DIR` is run (the CTest fixture cleanup),
  - the watched process dies (default: the parent of `up`, i.e. ctest or your shell; ctest
    killed with SIGKILL therefore takes the network with it within a second),
  - the lifetime runs out (default 1 hour),
  - the watchdog itself is killed (each tor notices its owner is gone and exits).
Only the Python standard library is used.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

# read_bandwidths, write_bandwidths and MEASURED_BANDWIDTH for tests/faults, which import this
from netfiles import (AUTHORITIES, MEASURED_BANDWIDTH, RELEASED_INITIAL_INTERVAL,  # noqa: F401
                      client_lines, generate, load_state, read_bandwidths, save_state,
                      voting_options, write_bandwidths, write_torrcs)
from torcontrol import (Control, alive, client_ready, consensus_complete,  # noqa: F401
                        descriptors_held, listening, read_pid, wait_until)

READY_TIMEOUT = 120.0
# From the authorities' start until the consensus lists every node: normally 6-12 s, as the first
# vote waits until every authority holds every node's descriptor. It runs out only when something
# is broken (a missing node would otherwise wait V3AuthVotingInterval, 300 s, for the next vote).
CONSENSUS_TIMEOUT = 60.0
NODE_START_TIMEOUT = 30.0
# A node whose descriptor an authority still lacks this long after the node started lost its
# upload (tor does not retry a failed one before it has a consensus): it is started again.
DESCRIPTOR_GRACE = 10.0


def log(message):
    print(f"testnet: {message}", file=sys.stderr, flush=True)


def watchdog(root, watch_pid, lifetime):
    """Parent of every tor of the network; stops them when asked or when the watched process dies."""
    state = load_state(root)
    children = {}

    def start(node):
        children[node.nick] = subprocess.Popen(
            ["tor", "-f", os.path.join(node.dir, "torrc"),
             "--defaults-torrc", os.path.join(root, "empty")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop_all():
        for proc in children.values():
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + 10
        for proc in children.values():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    signal.signal(signal.SIGTERM, lambda *_: (stop_all(), os._exit(0)))
    stop_file = os.path.join(root, "stop")
    deadline = time.monotonic() + lifetime
    while True:
        for node in state["nodes"]:
            # `up` starts the nodes one group after the other, `restart NICK` a node a fault test
            # killed: always as our child, and never twice.
            request = os.path.join(root, f"start-{node.nick}")
            if os.path.exists(request):
                os.remove(request)
                if node.nick not in children or children[node.nick].poll() is not None:
                    start(node)
        reason = None
        if os.path.exists(stop_file):
            reason = "asked to stop"
        elif watch_pid and not alive(watch_pid):
            reason = f"watched process {watch_pid} is gone"
        elif time.monotonic() > deadline:
            reason = "lifetime over"
        if reason:
            with open(os.path.join(root, "watchdog.log"), "a") as f:
                f.write(f"stopping: {reason}\n")
            stop_all()
            return
        for proc in children.values():
            proc.poll()
        time.sleep(0.2)


def request_start(root, node):
    """Has the watchdog start NODE (as its child) unless it is running."""
    open(os.path.join(root, f"start-{node.nick}"), "w").close()


def wait_started(node):
    wait_until(lambda: os.path.exists(os.path.join(node.dir, "control_auth_cookie")),
               NODE_START_TIMEOUT, f"{node.nick} to start (see {node.dir}/notice.log)")


def logged(node, text):
    try:
        with open(os.path.join(node.dir, "info.log"), errors="replace") as f:
            return text in f.read()
    except FileNotFoundError:
        return False


def replace_node(root, node):
    """Stops NODE and has the watchdog start it again; returns when its control port answers."""
    pid = read_pid(os.path.join(node.dir, "pid"))
    if alive(pid):
        os.kill(pid, signal.SIGTERM)
    wait_until(lambda: not alive(pid), NODE_START_TIMEOUT, f"{node.nick} to stop")
    restart_node(root, node.nick)


def gather_descriptors(root, auths, nodes, started, deadline):
    """Waits until every authority holds the descriptor of every node in NODES. A node uploads
    its descriptor once when it starts and, before there is a consensus, never again if that
    failed (e.g. an authority was not listening yet): such a node is started again
    DESCRIPTOR_GRACE s after its start (twice that after a second start...: a merely slow machine
    must not keep a node restarting). Returns the nicknames of the nodes started again."""
    again = []
    while True:
        try:
            held = [descriptors_held(a) for a in auths]
            missing = {n.nick for n in nodes if any(n.nick not in h for h in held)}
        except (OSError, RuntimeError) as e:
            missing = {f"(control port: {e})"}
        if not missing:
            return again
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for the authorities to hold the descriptors "
                               f"of {', '.join(sorted(missing))}")
        for node in nodes:
            grace = DESCRIPTOR_GRACE * (1 + again.count(node.nick))
            if node.nick in missing and time.monotonic() - started[node.nick] > grace:
                log(f"an authority lacks {node.nick}'s descriptor: starting {node.nick} again")
                replace_node(root, node)
                started[node.nick] = time.monotonic()
                again.append(node.nick)
        time.sleep(0.25)


def release_first_vote(auths):
    """Lets the authorities vote within 5 s. The vote starts 2 s before the next 5-s boundary
    (tor shrinks the vote and distribution delays to 1 s each in so short an interval); released
    early in an interval, all three agree on that boundary instead of voting at once, out of step."""
    controls = [Control.of(a) for a in auths]
    try:
        while not 0.3 <= time.time() % RELEASED_INITIAL_INTERVAL <= 2.5:
            time.sleep(0.05)
        settings = " ".join(f"{k}={v}" for k, v in voting_options(False, 0).items())
        for control in controls:
            control.command("SETCONF " + settings)
    finally:
        for control in controls:
            control.close()


def start_servers(root, args, auths, relays, deadline):
    """Starts the authorities, then the relays, holds the first vote until every authority has
    every node's descriptor, releases it. Returns the nodes started again and the release time.
    Fault injection for tests: --early-relay starts the first relay before the authorities listen
    (its upload is lost), --late-relay starts the last one that many seconds after the
    authorities listen (they used to vote first 2-5 s after their start)."""
    early = relays[:1] if args.early_relay else []
    late = relays[-1:] if args.late_relay else []
    started = {}
    for node in early:
        request_start(root, node)
        wait_until(lambda n=node: logged(n, "Uploading relay descriptor"), NODE_START_TIMEOUT,
                   f"{node.nick} to upload its descriptor to authorities not started yet")
        started[node.nick] = time.monotonic()
    for node in auths:
        request_start(root, node)
    for node in auths:
        wait_started(node)
        wait_until(lambda n=node: listening(n.dir_port), NODE_START_TIMEOUT,
                   f"{node.nick}'s DirPort to listen")
        started[node.nick] = time.monotonic()
    listening_since = time.monotonic()
    on_time = [n for n in relays if n not in early and n not in late]
    for node in on_time:
        request_start(root, node)
    for node in on_time + late:
        if node in late:
            time.sleep(max(0.0, listening_since + args.late_relay - time.monotonic()))
            request_start(root, node)
        wait_started(node)
        started[node.nick] = time.monotonic()
    again = gather_descriptors(root, auths, auths + relays, started, deadline)
    release_first_vote(auths)
    return again, time.monotonic()


def up(args):
    root = os.path.abspath(args.dir)
    if os.path.exists(root):
        down_quietly(root)
        shutil.rmtree(root)
    started = time.monotonic()
    nodes = generate(root, args.relays, args.clients)
    generated = time.monotonic()

    watch_pid = os.getppid() if args.watch_pid is None else args.watch_pid
    with open(os.path.join(root, "watchdog.log"), "w") as wlog:
        # The watchdog writes the torrcs: they name its own PID as __OwningControllerProcess.
        state = {"nodes": nodes, "watch_pid": watch_pid,
                 "info_log": [n.nick for n in nodes if n.kind == "relay"][:1] if args.early_relay
                 else []}
        save_state(root, state)
        watchdog_proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "_watchdog", root, str(watch_pid),
             str(args.lifetime)],
            stdin=subprocess.DEVNULL, stdout=wlog, stderr=wlog, start_new_session=True)
    with open(os.path.join(root, "watchdog.pid"), "w") as f:
        f.write(str(watchdog_proc.pid))
    try:
        auths = [n for n in nodes if n.kind == "auth"]
        relays = [n for n in nodes if n.kind == "relay"]
        servers = auths + relays
        deadline = time.monotonic() + args.ready_timeout
        again, released = start_servers(root, args, auths, relays, deadline)
        wait_until(lambda: all(consensus_complete(a, len(servers)) for a in auths),
                   max(1.0, deadline - time.monotonic()), "a consensus listing every relay")
        consensus = time.monotonic()
        # A node started again later (a fault test's restart) gets the released timing.
        write_torrcs(root, state, watchdog_proc.pid, vote_held=False)
        clients = [n for n in nodes if n.kind == "client"]
        for node in clients:
            request_start(root, node)
        for node in clients:
            wait_until(lambda n=node: client_ready(n), READY_TIMEOUT, f"{node.nick} to bootstrap")
        ready = time.monotonic()
    except Exception:
        down_quietly(root)
        raise

    with open(os.path.join(root, "client.torrc"), "w") as f:
        f.write("\n".join(client_lines(root, nodes)) + "\n")
    report = {"keys_and_configs_s": round(generated - started, 2),
              "consensus_complete_s": round(consensus - generated, 2),
              "first_vote_released_s": round(released - generated, 2),
              "started_again": again,
              "clients_ready_s": round(ready - consensus, 2),
              "authorities": AUTHORITIES, "relays": args.relays,
              "clients": [{"nick": c.nick, "socks": f"127.0.0.1:{c.socks_port}",
                           "control": f"127.0.0.1:{c.control_port}",
                           "cookie": os.path.join(c.dir, "control_auth_cookie")} for c in clients]}
    with open(os.path.join(root, "ready.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report, indent=1))
    print(f"""
Private Tor network up in {root} (watchdog PID {watchdog_proc.pid}, watching PID {watch_pid}).
An OnionVoice instance uses it with --testnet {root} (onionvoice, onionvoice-cli serve|call),
the tests with ONIONVOICE_TESTNET={root}
(its tor then adds the lines of {root}/client.torrc to its own torrc).
Stop it with: {sys.argv[0]} down {root}""")


def down_quietly(root):
    open(os.path.join(root, "stop"), "w").close()
    watchdog_pid = read_pid(os.path.join(root, "watchdog.pid"))
    deadline = time.monotonic() + 15
    while alive(watchdog_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if alive(watchdog_pid):
        os.kill(watchdog_pid, signal.SIGKILL)
    # Whatever survived the watchdog (it was killed, or never started) is stopped by PID file.
    survivors = []
    for entry in sorted(os.listdir(root)):
        pid = read_pid(os.path.join(root, entry, "pid"))
        if alive(pid) and is_tor_of(pid, root):
            os.kill(pid, signal.SIGTERM)
            survivors.append(pid)
    deadline = time.monotonic() + 10
    while any(alive(p) for p in survivors) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in survivors:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    return survivors


def is_tor_of(pid, root):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().split(b"\0")
    except OSError:
        return False
    return os.path.basename(cmdline[0]) == b"tor" and any(root.encode() in a for a in cmdline)


def down(args):
    root = os.path.abspath(args.dir)
    if not os.path.isdir(root):
        log(f"nothing to stop in {root}")
        return
    survivors = down_quietly(root)
    if survivors:
        log(f"had to stop {len(survivors)} tor processes the watchdog left behind")
    remaining = [e for e in os.listdir(root) if alive(read_pid(os.path.join(root, e, "pid")))]
    if remaining:
        raise SystemExit(f"testnet: still running: {remaining}")
    log(f"network in {root} stopped")


def check_clean(args):
    """Fails when a tor process mentioning one of the paths (its torrc, data directory) still runs."""
    paths = [os.path.abspath(p).encode() for p in args.paths]
    listing = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True).stdout
    tors = [l for l in listing.splitlines()[1:] if os.path.basename(l.split()[2]) == "tor"]
    print("tor processes still running on this machine:", len(tors))
    for line in tors:
        print("  " + line)
    left = []
    for line in tors:
        pid = int(line.split()[0])
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if any(p in cmdline for p in paths) and alive(pid):
            left.append(line)
    if left:
        raise SystemExit("testnet: tor processes left behind:\n" + "\n".join(left))
    print("none of them belongs to", ", ".join(args.paths))


def restart_node(root, nick, timeout=NODE_START_TIMEOUT):
    """Has the watchdog start a node again that died (a fault test killed it); waits until its
    control port answers. Returns the new PID."""
    node = next(n for n in load_state(root)["nodes"] if n.nick == nick)
    pid_file = os.path.join(node.dir, "pid")
    old = read_pid(pid_file)
    request_start(root, node)

    def answers():
        pid = read_pid(pid_file)
        if pid == old or not alive(pid):
            return False
        Control.of(node).close()
        return True

    wait_until(answers, timeout, f"{nick} to restart (see {node.dir}/notice.log)")
    return read_pid(pid_file)


def restart(args):
    print(restart_node(os.path.abspath(args.dir), args.node))


def status(args):
    root = os.path.abspath(args.dir)
    state = load_state(root)
    for node in state["nodes"]:
        pid = read_pid(os.path.join(node.dir, "pid"))
        print(f"{node.nick:8} pid {pid} {'running' if alive(pid) else 'stopped'}")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "_watchdog":
        root, watch_pid, lifetime = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
        state = load_state(root)
        write_torrcs(root, state, os.getpid(), vote_held=True)
        watchdog(root, watch_pid, lifetime)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_up = sub.add_parser("up")
    p_up.add_argument("dir")
    p_up.add_argument("--relays", type=int, default=5)
    p_up.add_argument("--clients", type=int, default=0)
    p_up.add_argument("--watch-pid", type=int, default=None,
                      help="stop the network when this process dies (default: the parent of up; "
                           "0: never)")
    p_up.add_argument("--lifetime", type=float, default=3600.0)
    p_up.add_argument("--ready-timeout", type=float, default=CONSENSUS_TIMEOUT,
                      help="seconds from the authorities' start to a consensus listing every "
                           "relay (the first vote waits for every relay's descriptor)")
    p_up.add_argument("--late-relay", type=float, default=0.0, metavar="SECONDS",
                      help="fault injection: start the last relay SECONDS after the "
                           "authorities listen")
    p_up.add_argument("--early-relay", action="store_true",
                      help="fault injection: start the first relay before the authorities "
                           "listen, so that its descriptor upload is lost")
    for name in ("down", "status"):
        p = sub.add_parser(name)
        p.add_argument("dir")
    p_restart = sub.add_parser("restart", help="start a node again that was killed")
    p_restart.add_argument("dir")
    p_restart.add_argument("node")
    p_check = sub.add_parser("check-clean")
    p_check.add_argument("paths", nargs="+")
    args = parser.parse_args()
    {"up": up, "down": down, "status": status, "restart": restart,
     "check-clean": check_clean}[args.command](args)


if __name__ == "__main__":
    main()
