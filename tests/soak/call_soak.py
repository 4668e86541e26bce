#!/usr/bin/env python3
"""A long real call on the private Tor network (issue 12 soak): two onionvoice-cli instances talk
for --minutes (default 10), optionally over links impaired with a generated trace; every 10 s the
resident memory and CPU of both instances and of their tors are sampled, with each side's playout
delay (jitter buffer target and level); the end-of-call statistics of both sides close the output.

    call_soak.py --build DIR [--minutes 10] [--profile NAME --seed N | --impair TRACE | --no-impair]
                 [--policy adaptive] [--network NET] [--workdir DIR]

One JSON object per sample, then {"summary": true, ...}. Exit status 1 when the call did not last
(ended otherwise than by the caller's hang-up), 2 on a harness error.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "faults"))
import faults  # noqa: E402  (Instance, speech, the network)
import torfaults  # noqa: E402
from torfaults import testnet  # noqa: E402

SAMPLE_S = 10.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def usage(pid):
    """(resident MB, CPU seconds so far) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/status") as f:
            rss_kb = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return None
    return rss_kb / 1024.0, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--profile", default="default", help="trace profile of onionvoice-sim")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--impair", help="replay this trace instead of generating one")
    parser.add_argument("--no-impair", action="store_true", help="the unimpaired network")
    parser.add_argument("--policy", default="adaptive")
    parser.add_argument("--network")
    parser.add_argument("--workdir")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    cli = os.path.join(build, "app", "cli", "onionvoice-cli")
    workdir = os.path.abspath(args.workdir or os.path.join(build, "tests", "soak", "call"))
    os.makedirs(workdir, exist_ok=True)
    seconds = int(args.minutes * 60)

    trace = args.impair
    if not trace and not args.no_impair:
        traces = os.path.join(workdir, "trace")
        subprocess.run([os.path.join(build, "app", "onionvoice-sim"), "generate", "--out", traces,
                        "--calls", "1", "--minutes", str(int(args.minutes) + 2), "--seed",
                        str(args.seed), "--profile", args.profile], check=True,
                       stdout=subprocess.DEVNULL)
        trace = os.path.join(traces, "call-000.csv")

    own_network = not args.network
    root = os.path.abspath(args.network or os.path.join(workdir, "network"))
    if own_network:
        subprocess.run([sys.executable, os.path.join(faults.SOURCE, "tests", "testnet",
                                                     "testnet.py"), "up", root, "--watch-pid",
                        str(os.getpid())], check=True, stdout=subprocess.DEVNULL)
    speech = faults.make_speech(workdir)
    dirs = {"callee": os.path.join(workdir, "callee"), "caller": os.path.join(workdir, "caller")}
    common = ["--testnet", root, "--json", "--policy", args.policy, "--play", speech]
    instances = []
    try:
        callee = faults.Instance("callee", [cli, "serve", "--answer", "auto", "--data-dir",
                                            dirs["callee"], "--record",
                                            os.path.join(workdir, "callee-heard.wav")] + common,
                                 workdir)
        instances.append(callee)
        ready = callee.wait_event(lambda e: e.get("event") == "ready", 90, "its service")
        caller_args = [cli, "call", ready["address"], "--seconds", str(seconds), "--data-dir",
                       dirs["caller"], "--record", os.path.join(workdir, "caller-heard.wav")]
        caller_args += ["--impair", trace] if trace else []
        caller = faults.Instance("caller", caller_args + common, workdir)
        instances.append(caller)
        caller.wait_event(lambda e: e.get("event") == "state" and e.get("state") == "active", 90,
                          "the call to become active")

        processes = {"caller": caller.proc.pid, "callee": callee.proc.pid,
                     "caller_tor": torfaults.AppTor(dirs["caller"]).pid(),
                     "callee_tor": torfaults.AppTor(dirs["callee"]).pid()}
        started = time.monotonic()
        last = {name: usage(pid) for name, pid in processes.items()}
        peak = {name: 0.0 for name in processes}
        cpu_total = {name: 0.0 for name in processes}
        while caller.proc.poll() is None:
            time.sleep(SAMPLE_S)
            sample = {"t_s": round(time.monotonic() - started)}
            for name, pid in processes.items():
                now = usage(pid)
                if now and last[name]:
                    sample[f"{name}_rss_mb"] = round(now[0], 1)
                    sample[f"{name}_cpu_pct"] = round(100 * (now[1] - last[name][1]) / SAMPLE_S, 1)
                    peak[name] = max(peak[name], now[0])
                    cpu_total[name] = now[1]
                last[name] = now
            for instance in (caller, callee):
                stats = instance.latest() or {}
                for key in ("jitter_target_ms", "jitter_level_ms", "delay_p50_ms", "delay_p99_ms",
                            "late", "lost", "links_up"):
                    sample[f"{instance.name}_{key}"] = stats.get(key)
            print(json.dumps(sample), flush=True)
        callee.interrupt()
        summaries = {i.name: i.summary() for i in instances}
        caller_end = (summaries["caller"] or {}).get("end_reason")
        print(json.dumps({"summary": True, "minutes": args.minutes, "policy": args.policy,
                          "trace": trace, "end_reason": caller_end,
                          "peak_rss_mb": {k: round(v, 1) for k, v in peak.items()},
                          "cpu_s": {k: round(v, 1) for k, v in cpu_total.items()},
                          "caller_end": summaries["caller"], "callee_end": summaries["callee"]}),
              flush=True)
        sys.exit(0 if caller_end == "hung-up-locally" else 1)
    finally:
        for instance in instances:
            instance.interrupt()
            instance.close()
        if own_network:
            testnet.down_quietly(root)


if __name__ == "__main__":
    main()
