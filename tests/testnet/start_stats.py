#!/usr/bin/env python3
"""Starts the private test network again and again and reports how long the consensus took.

    start_stats.py --runs 10 --parallel 2 [--relays 5] [--ready-timeout 60] [--testnet PATH]

Each start is `testnet.py up` with its own directory; its JSON (`consensus_complete_s`) is kept,
and the nodes' logs are read to tell why a start was slow: which relays the first consensus
lacked, when each relay and each authority started, when the authorities first voted. A start
that times out (default 60 s) missed the first vote (the next one is 5 minutes later). One JSON
object per start on stdout, then a summary. Not a timing benchmark: run it under `nice -n 19`.
`--testnet OLD --testnet NEW` compares two copies (e.g. one from an older commit) under equal load.
"""

import argparse
import base64
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STAMP = re.compile(r"^(\w{3} \d+ [\d:.]+) ")


def stamp_seconds(line):
    """Seconds of the day of a tor log line (its year is not logged)."""
    match = STAMP.match(line)
    if not match:
        return None
    clock = match.group(1).split()[2]
    hours, minutes, seconds = clock.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def first_stamp(path, needle):
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if needle in line:
                    return stamp_seconds(line)
    except OSError:
        pass
    return None


def analyse(root):
    """What the nodes' logs and the last consensus say about one start."""
    with open(os.path.join(root, "network.json")) as f:
        nodes = [n for n in json.load(f)["nodes"] if n["kind"] != "client"]
    listed = set()
    try:
        with open(os.path.join(root, "auth0", "cached-consensus")) as f:
            listed = {line.split()[2] for line in f if line.startswith("r ")}
    except OSError:
        pass
    by_identity = {base64.b64encode(bytes.fromhex(n["fingerprint"])).decode().rstrip("="): n
                   for n in nodes}
    in_consensus = {by_identity[i]["nick"] for i in listed if i in by_identity}
    starts = {n["nick"]: first_stamp(os.path.join(n["dir"], "notice.log"), "running on")
              for n in nodes}
    origin = min((s for s in starts.values() if s is not None), default=0)
    votes = [first_stamp(os.path.join(n["dir"], "notice.log"), "Time to vote")
             for n in nodes if n["kind"] == "auth"]
    return {"missing_from_last_consensus": sorted(n["nick"] for n in nodes
                                                  if n["nick"] not in in_consensus),
            "node_start_s": {k: round(v - origin, 1) for k, v in starts.items() if v is not None},
            "first_vote_s": [round(v - origin, 1) if v is not None else None for v in votes]}


def one_start(args, index):
    root = os.path.join(args.workdir, f"net{index}")
    testnet = args.testnet[index % len(args.testnet)]
    begun = time.monotonic()
    proc = subprocess.run([sys.executable, testnet, "up", root, "--relays", str(args.relays),
                           "--ready-timeout", str(args.ready_timeout), "--watch-pid",
                           str(os.getpid())], capture_output=True, text=True)
    result = {"run": index, "testnet": testnet, "ok": proc.returncode == 0, "wall_s": round(time.monotonic() - begun, 1),
              "load": os.getloadavg()[0]}
    if proc.returncode == 0:
        report = json.loads(proc.stdout[:proc.stdout.index("\n}") + 2])
        for key in ("consensus_complete_s", "first_vote_released_s", "started_again"):
            if key in report:
                result[key] = report[key]
    else:
        result["error"] = proc.stderr.strip().splitlines()[-1:]
    result.update(analyse(root))
    subprocess.run([sys.executable, testnet, "down", root], capture_output=True)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result), flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--parallel", type=int, default=2, choices=(1, 2))
    parser.add_argument("--relays", type=int, default=5)
    parser.add_argument("--ready-timeout", type=float, default=60.0)
    parser.add_argument("--testnet", action="append",
                        help="testnet.py to run (default: the one beside this script); given "
                             "twice, the starts alternate between both, so that with --parallel "
                             "2 each runs beside the other under the same load")
    parser.add_argument("--workdir", default="/tmp/onionvoice-start-stats")
    parser.add_argument("--keep", action="store_true", help="keep each network's directory")
    args = parser.parse_args()
    args.testnet = [os.path.abspath(p) for p in args.testnet or [os.path.join(HERE, "testnet.py")]]
    os.makedirs(args.workdir, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(args.parallel) as pool:
        results = list(pool.map(lambda i: one_start(args, i), range(args.runs)))
    for testnet in args.testnet:
        mine = [r for r in results if r["testnet"] == testnet]
        print(json.dumps({"testnet": testnet, "runs": len(mine),
                          "timed_out": sum(not r["ok"] for r in mine),
                          "consensus_complete_s": sorted(r["consensus_complete_s"]
                                                         for r in mine if r["ok"]),
                          "incomplete_last_consensus": sum(bool(r["missing_from_last_consensus"])
                                                           for r in mine)}))


if __name__ == "__main__":
    main()
