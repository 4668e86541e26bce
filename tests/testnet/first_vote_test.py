#!/usr/bin/env python3
"""A relay that is late for the first vote, or whose descriptor upload is lost, is still in the
private network's first consensus.

    first_vote_test.py WORKDIR

Starts a network of 3 authorities and 3 relays with two faults injected (`testnet.py up
--early-relay --late-relay 8`): relay0 starts before the authorities listen, so its one
descriptor upload is refused; relay2 starts 8 s after the authorities listen, later than their
first vote used to happen (2-5 s after their start). Before the first vote was
held, either fault left the relay out of the first consensus until the next vote 5 minutes later,
so `up` with a 60-s bound failed. Passes when `up` succeeds within that bound, the first
consensus of every authority lists all six nodes, relay0 was started again and relay2 started
late. Always stops the network.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import testnet  # noqa: E402
from start_stats import first_stamp  # noqa: E402

LATE_S = 8


def main():
    # An option is not a directory: "--help" once made ./--help/first-vote-network.
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        raise SystemExit(__doc__)
    root = os.path.abspath(os.path.join(sys.argv[1], "first-vote-network"))
    os.makedirs(os.path.dirname(root), exist_ok=True)
    failures = []
    try:
        proc = subprocess.run([sys.executable, os.path.join(HERE, "testnet.py"), "up", root,
                               "--relays", "3", "--early-relay", "--late-relay", str(LATE_S),
                               "--ready-timeout", "60", "--watch-pid", str(os.getpid())],
                              capture_output=True, text=True)
        sys.stderr.write(proc.stderr)
        if proc.returncode != 0:
            raise SystemExit(f"FAIL: testnet.py up exited {proc.returncode}")
        report = json.loads(proc.stdout[:proc.stdout.index("\n}") + 2])
        print(json.dumps(report))
        nodes = testnet.load_state(root)["nodes"]
        auths = [n for n in nodes if n.kind == "auth"]
        for auth in auths:
            control = testnet.Control.of(auth)
            try:
                listed = {l.split()[1] for l in control.command("GETINFO ns/all")
                          if l.startswith("r ")}
                valid_after = control.command("GETINFO consensus/valid-after")[0]
            finally:
                control.close()
            print(f"{auth.nick}: consensus {valid_after} lists {', '.join(sorted(listed))}")
            missing = {n.nick for n in nodes} - listed
            if missing:
                failures.append(f"{auth.nick}'s consensus lacks {', '.join(sorted(missing))}")
        if "relay0" not in report["started_again"]:
            failures.append(f"relay0 (lost upload) was not started again: "
                            f"{report['started_again']}")
        # Seconds of the day of each tor's first start (a restarted node appends to its log).
        starts = {n.nick: first_stamp(os.path.join(n.dir, "notice.log"), "running on")
                  for n in nodes}
        if (starts["relay2"] - max(starts[a.nick] for a in auths)) % 86400 < LATE_S - 0.5:
            failures.append("relay2 was not started late")
    finally:
        testnet.down_quietly(root)
    if failures:
        raise SystemExit("FAIL: " + "; ".join(failures))
    print("PASS: every node is in the first consensus")


if __name__ == "__main__":
    main()
