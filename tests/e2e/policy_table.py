#!/usr/bin/env python3
"""Impaired end-to-end policy table: real calls between two onionvoice-cli instances over the
private Tor network, the caller's links replaying generated traces (--impair), every policy on
the same traces, next to what onionvoice-sim predicts for those traces.

    policy_table.py --build DIR [--profiles hostile measured] [--calls 4] [--seconds 40]
                    [--seed 101] [--testnet DIR] [--work DIR] [--tor-nagle]

Traces come from `onionvoice-sim generate --profile NAME` (seeds from --seed up), cut to the
call's length so the simulator replays exactly what the relay replays. The tors run with
TCP_NODELAY (e2e.sh --tor-nodelay): a network given by --testnet must have been started with
LD_PRELOAD=BUILD/tests/e2e/libonionvoice_tor_nodelay.so. Prints a Markdown table
per profile and the two rankings; every call's JSON is kept in WORK/results.jsonl.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
POLICIES = ["simple", "torfone", "alternate", "double-send", "adaptive"]


def cut_trace(src, dst, seconds):
    """Rows up to the call's length plus a margin (link setup happens before trace time 0)."""
    limit = (seconds + 5) * 1000.0
    with open(src, encoding="ascii") as f, open(dst, "w", encoding="ascii") as out:
        for line in f:
            if line.startswith("#") or line.startswith("slot,"):
                out.write(line)
                continue
            if float(line.split(",")[1]) <= limit:
                out.write(line)


def sim_summary(build, traces, policy):
    out = subprocess.run([os.path.join(build, "app", "onionvoice-sim"), "run", "--traces", traces,
                          "--policy", policy, "--json"], check=True, capture_output=True,
                         text=True).stdout
    calls = [json.loads(l) for l in out.splitlines() if l.strip().startswith("{")]
    per_call = [c for c in calls if not c.get("summary")]
    late = [d["late_pct"] for c in per_call for d in (c, c["ba"])]
    p99 = [d["p99_ms"] for c in per_call for d in (c, c["ba"]) if d["p99_ms"] is not None]
    return {"late_pct": statistics.mean(late), "p99_ms": statistics.median(p99) if p99 else None,
            "cells_per_s": statistics.mean(c["cells_per_s"] for c in per_call)}


def e2e_summary(results):
    dirs = [r[k] for r in results for k in ("caller_to_callee", "callee_to_caller")]
    pesq = [d["pesq_wb"] for d in dirs if d["pesq_wb"] is not None]
    return {
        "calls": len(results),
        "late_pct": statistics.mean(d["late_pct"] for d in dirs),
        "p99_ms": statistics.median(d["owd_p99_ms"] for d in dirs),
        "pesq_wb": statistics.mean(pesq) if pesq else None,
        "cells_per_s": statistics.mean(d["cells_per_s"] for d in dirs),
    }


def rank(rows, key):
    return [p for p, _ in sorted(rows.items(), key=lambda kv: (kv[1][key] is None, kv[1][key]))]


def fmt(x, digits=1):
    return "–" if x is None else f"{x:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    parser.add_argument("--profiles", nargs="+", default=["hostile", "measured"])
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=40)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--policies", nargs="+", default=POLICIES)
    parser.add_argument("--testnet", default=os.environ.get("ONIONVOICE_TESTNET"))
    parser.add_argument("--work")
    parser.add_argument("--tor-nagle", action="store_true",
                        help="leave the tors' Nagle on (default: e2e.sh --tor-nodelay, so the "
                             "trace is the only delay added; tests/e2e/README.md)")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="onionvoice-policy-table-"))
    os.makedirs(work, exist_ok=True)
    results_path = os.path.join(work, "results.jsonl")
    done = {}
    if os.path.exists(results_path):  # resume: calls already made are kept
        with open(results_path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                done[(r["profile"], r["trace_name"], r["policy"])] = r
    minutes = max(1, -(-(args.seconds + 5) // 60))
    for profile in args.profiles:
        full = os.path.join(work, profile, "full")
        cut = os.path.join(work, profile, "traces")
        if not os.path.isdir(cut):
            subprocess.run([os.path.join(build, "app", "onionvoice-sim"), "generate", "--out", full,
                            "--calls", str(args.calls), "--minutes", str(minutes), "--seed",
                            str(args.seed), "--profile", profile], check=True,
                           stdout=subprocess.DEVNULL)
            os.makedirs(cut)
            for name in sorted(os.listdir(full)):
                cut_trace(os.path.join(full, name), os.path.join(cut, name), args.seconds)
        for name in sorted(os.listdir(cut)):
            for policy in args.policies:
                if (profile, name, policy) in done:
                    continue
                cmd = [os.path.join(HERE, "e2e.sh"), "--build", build, "--seconds",
                       str(args.seconds), "--policy", policy, "--impair", os.path.join(cut, name),
                       "--json", "--work", os.path.join(work, profile, "runs", f"{name}-{policy}")]
                if args.testnet:
                    cmd += ["--testnet", args.testnet]
                if not args.tor_nagle:
                    cmd.append("--tor-nodelay")
                print(f"policy-table: {profile} {name} {policy}", file=sys.stderr, flush=True)
                run = subprocess.run(cmd, capture_output=True, text=True)
                if run.returncode != 0 or not run.stdout.strip():
                    print(run.stderr[-2000:], file=sys.stderr)
                    continue
                r = json.loads(run.stdout.strip().splitlines()[-1])
                r.update({"profile": profile, "trace_name": name})
                done[(profile, name, policy)] = r
                with open(results_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(r) + "\n")
    for profile in args.profiles:
        cut = os.path.join(work, profile, "traces")
        e2e = {p: e2e_summary([r for (pr, _, po), r in done.items() if pr == profile and po == p])
               for p in args.policies
               if any(pr == profile and po == p for (pr, _, po) in done)}
        sim = {p: sim_summary(build, cut, p) for p in e2e}
        print(f"\n{profile}: {args.calls} traces (seeds {args.seed}+), {args.seconds}-s calls, "
              f"both directions\n")
        print("| policy | calls | late % | p99 one-way (ms) | PESQ-WB | cells/s | sim late % "
              "| sim p99 (ms) |")
        print("|---|---|---|---|---|---|---|---|")
        for p, s in e2e.items():
            print(f"| {p} | {s['calls']} | {fmt(s['late_pct'], 2)} | {fmt(s['p99_ms'])} | "
                  f"{fmt(s['pesq_wb'], 2)} | {fmt(s['cells_per_s'])} | "
                  f"{fmt(sim[p]['late_pct'], 2)} | {fmt(sim[p]['p99_ms'])} |")
        print(f"\nranking by p99, end to end: {' < '.join(rank(e2e, 'p99_ms'))}")
        print(f"ranking by p99, simulator:  {' < '.join(rank(sim, 'p99_ms'))}")
        print(f"ranking by late %, end to end: {' < '.join(rank(e2e, 'late_pct'))}")
        print(f"ranking by late %, simulator:  {' < '.join(rank(sim, 'late_pct'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
