#!/usr/bin/env python3
"""End-to-end call benchmark: two onionvoice-cli instances call each other over the private Tor
network of tests/testnet, each playing speech and recording what arrives, and one JSON object
sums the call up (field names: tests/e2e/README.md).

    e2e.py --build DIR --seconds N --policy NAME [--impair TRACE] [--json] [--tor-nodelay]
           [--testnet DIR] [--work DIR] [--require-pesq X] [--require-late PCT]

Without --testnet (or $ONIONVOICE_TESTNET) a network is started for the run and stopped after.
--require-* make the exit status 1 when a direction misses the bound (for CI).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
PESQ_SCRIPT = os.path.join(SOURCE, "app", "cli", "pesq_score.py")
TESTNET = os.path.join(SOURCE, "tests", "testnet", "testnet.py")
SPEECH_SCRIPT = os.path.join(SOURCE, "tests", "media", "make_speech.sh")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(message):
    print(f"e2e: {message}", file=sys.stderr, flush=True)


# ---- /proc sampling: CPU seconds and peak RSS of an instance and its tor children ----

def proc_cpu_rss(pid):
    """(cpu seconds, VmHWM kB) of one process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            hwm = next((int(l.split()[1]) for l in f if l.startswith("VmHWM:")), 0)
    except (OSError, StopIteration):
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK, hwm


def children(pid):
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


class Sampler(threading.Thread):
    """Samples every 0.2 s; keeps, per process, the last CPU time and the peak RSS, and for the
    instance itself a (monotonic time, cpu) series to cut out the call."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.series = []         # (CLOCK_MONOTONIC us, instance cpu s)
        self.last = {}           # pid -> (cpu s, hwm kB)
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.is_set():
            now_us = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
            for p in [self.pid] + children(self.pid):
                sample = proc_cpu_rss(p)
                if sample:
                    peak = max(sample[1], self.last.get(p, (0, 0))[1])  # gone: VmHWM reads 0
                    self.last[p] = (sample[0], peak)
                    if p == self.pid:
                        self.series.append((now_us, sample[0]))
            self.stopped.wait(0.2)

    def report(self, start_us, end_us):
        own = self.last.get(self.pid, (0.0, 0))
        tors = [v for p, v in self.last.items() if p != self.pid]
        inside = [s for s in self.series if start_us <= s[0] <= end_us]
        pct = None
        if len(inside) >= 2 and inside[-1][0] > inside[0][0]:
            pct = 100.0 * (inside[-1][1] - inside[0][1]) / ((inside[-1][0] - inside[0][0]) / 1e6)
        return {
            "cpu_s": round(own[0], 2),
            "cpu_s_with_tor": round(own[0] + sum(t[0] for t in tors), 2),
            "rss_peak_mb": round(own[1] / 1024.0, 1),
            "rss_peak_mb_with_tor": round((own[1] + sum(t[1] for t in tors)) / 1024.0, 1),
            "call_cpu_pct_of_core": round(pct, 2) if pct is not None else None,
        }


# ---- running the instances ----

class Instance:
    def __init__(self, name, argv, work):
        self.name = name
        self.stdout_path = os.path.join(work, f"{name}.jsonl")
        self.stderr_path = os.path.join(work, f"{name}.err")
        self.out = open(self.stdout_path, "w", encoding="utf-8")
        self.err = open(self.stderr_path, "w", encoding="utf-8")
        log(" ".join(argv))
        self.process = subprocess.Popen(argv, stdout=self.out, stderr=self.err)
        self.sampler = Sampler(self.process.pid)
        self.sampler.start()

    def events(self):
        with open(self.stdout_path, encoding="utf-8") as f:
            return [json.loads(l) for l in f if l.strip().startswith("{")]

    def wait_event(self, name, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for e in self.events():
                if e.get("event") == name:
                    return e
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise RuntimeError(f"{self.name}: no '{name}' event (see {self.stderr_path})")

    def finish(self, timeout):
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(30)
        self.sampler.stopped.set()
        self.sampler.join()
        self.out.close()
        self.err.close()
        return self.process.returncode

    def summary(self):
        return next((e for e in reversed(self.events()) if e.get("event") == "summary"), {})


def run(args, work, network):
    import e2e_analysis as A
    import impairctl
    cli = os.path.join(args.build, "app", "cli", "onionvoice-cli")
    speech = os.path.join(work, "speech.wav")
    if not os.path.exists(speech):
        subprocess.run(["sh", SPEECH_SCRIPT, speech], check=True, stdout=subprocess.DEVNULL)
    # The callee speaks other sentences (the second voice first): with the same speech both ways
    # the echo canceller would take the far end's words in the microphone for echo.
    speech_b = os.path.join(work, "speech-b.wav")
    if not os.path.exists(speech_b):
        subprocess.run(["sox", f"|sox {speech} -p trim 28.6", f"|sox {speech} -p trim 0 28.6",
                        "-b", "16", speech_b], check=True)
    common = ["--testnet", network, "--policy", args.policy, "--links", str(args.links),
              "--json"] + args.cli_option
    # WAV files have no acoustic path from speaker to microphone: there is no echo to cancel, and
    # with both sides talking all the time the canceller only eats into the near end's speech
    # (measured: PESQ-WB 0.3-0.5 lower with it, tests/e2e/README.md). --echo-cancel keeps it.
    if not args.echo_cancel:
        common.append("--no-echo-cancel")
    callee = Instance("callee", [cli, "serve", "--data-dir", os.path.join(work, "callee"),
                                 "--play", speech_b, "--record", os.path.join(work, "callee-heard.wav"),
                                 "--frame-log", os.path.join(work, "callee.frames"), "--calls", "1"]
                      + common, work)
    caller = None
    try:
        address = callee.wait_event("ready", 120)["address"]
        argv = [cli, "call", address, "--data-dir", os.path.join(work, "caller"),
                "--play", speech, "--record", os.path.join(work, "caller-heard.wav"),
                "--frame-log", os.path.join(work, "caller.frames"),
                "--seconds", str(args.seconds)] + common
        control_path = os.path.join(work, "impair.sock")
        if args.impair:
            argv += ["--impair", args.impair, "--impair-control", control_path]
        caller = Instance("caller", argv, work)
        relay_stats = None
        if args.impair:
            caller.wait_event("state", 120)
            # Ask the relay for its own figures shortly before the hang-up.
            active = caller.wait_event("statistics", 180)
            time.sleep(max(0, args.seconds - 3 - active["duration_ms"] / 1000.0))
            relay_stats = json.loads(impairctl.send(control_path, "stats"))
        caller_code = caller.finish(args.seconds + 240)
        callee_code = callee.finish(30)
    finally:
        for inst in (caller, callee):
            if inst and inst.process.poll() is None:
                inst.process.kill()
    if caller_code != 0:
        raise RuntimeError(f"caller exited with {caller_code}: {caller.summary()}")

    a = A.FrameLog(os.path.join(work, "caller.frames"))
    b = A.FrameLog(os.path.join(work, "callee.frames"))
    result = {
        "seconds": args.seconds,
        "policy": args.policy,
        "links": args.links,
        "impair": args.impair,
        "tor_nodelay": args.tor_nodelay,
        "end_reason": caller.summary().get("end_reason"),
        "setup_ms": {
            "dial_to_ringing": round((a.first("ringing") - a.first("dial")) / 1000.0, 1),
            "answer_to_first_audio": round(
                (max(min(t for _, t in a.recv.values()), min(t for _, t in b.recv.values()))
                 - b.first("answer")) / 1000.0, 1),
        },
    }
    summaries = {"caller": caller.summary(), "callee": callee.summary()}
    for name, sender, receiver, played, recorded, who in (
            ("caller_to_callee", a, b, speech, os.path.join(work, "callee-heard.wav"), "caller"),
            ("callee_to_caller", b, a, speech_b, os.path.join(work, "caller-heard.wav"),
             "callee")):
        d = A.direction_delays(sender, receiver)
        d.update(A.audio_direction(played, recorded, sender, receiver, args.seconds - 2))
        d["cells_per_s"] = summaries[who].get("statistics", {}).get("cells_per_s")
        # What the listener itself estimated while the call ran (its statistics each second; the
        # summary's is taken after the hang-up), the median as for the measured delay.
        listener = caller if who == "callee" else callee
        estimates = [e["mouth_to_ear_ms"] for e in listener.events()
                     if e.get("event") == "statistics" and "mouth_to_ear_ms" in e]
        d["mouth_to_ear_estimate_ms"] = A.percentile(estimates, 50) if estimates else None
        result[name] = d
    start = max(a.first("active"), b.first("active")) + 1_000_000
    end = min(a.first("ended"), b.first("ended"))
    result["instances"] = {"caller": caller.sampler.report(start, end),
                           "callee": callee.sampler.report(start, end)}
    # Acceptance 3 (issue 8): engine + audio of one instance under 5 % of a core, RSS < 120 MB.
    callee_load = result["instances"]["callee"]
    result["instance_budget_ok"] = (callee_load["call_cpu_pct_of_core"] is not None
                                    and callee_load["call_cpu_pct_of_core"] < 5.0
                                    and callee_load["rss_peak_mb"] < 120.0)
    if args.impair:
        result["impair_accuracy"] = A.impair_accuracy(args.impair, a, b)
        if relay_stats:  # the relay's own error: when it wrote bytes versus when it should have
            for key in ("release_late_p50_ms", "release_late_p95_ms", "release_late_max_ms"):
                result["impair_accuracy"]["relay_" + key] = round(relay_stats.get(key), 2)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--policy", default="adaptive")
    parser.add_argument("--links", type=int, default=12)
    parser.add_argument("--impair")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--testnet", default=os.environ.get("ONIONVOICE_TESTNET"))
    parser.add_argument("--work", help="keep the run's files here (default: a temporary dir)")
    parser.add_argument("--echo-cancel", action="store_true",
                        help="keep the instances' echo cancellation on (off by default)")
    parser.add_argument("--cli-option", action="append", default=[],
                        help="extra option for both instances, e.g. --cli-option=--no-echo-cancel")
    parser.add_argument("--tor-nodelay", action="store_true",
                        help="run the network's tors (and the instances' own) with TCP_NODELAY "
                             "(BUILD/tests/e2e/libonionvoice_tor_nodelay.so preloaded); a network "
                             "given by --testnet must have been started with it")
    parser.add_argument("--require-pesq", type=float)
    parser.add_argument("--require-late", type=float)
    parser.add_argument("--inside-venv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.build = os.path.abspath(args.build)
    if args.impair:
        args.impair = os.path.abspath(args.impair)
        if not os.path.isfile(args.impair):
            parser.error(f"--impair {args.impair}: no such file")

    if not args.inside_venv:  # numpy and pesq live in the PESQ helper's virtual environment
        sys.path.insert(0, os.path.dirname(PESQ_SCRIPT))
        import pesq_score
        python = pesq_score.ensure_venv(os.path.join(args.build, "pesq-venv"))
        os.execv(python, [python, os.path.abspath(__file__), "--inside-venv"] + sys.argv[1:])
    sys.path.insert(0, HERE)

    if args.tor_nodelay:  # inherited by the network started below and by both instances' tor
        preload = os.path.join(args.build, "tests", "e2e", "libonionvoice_tor_nodelay.so")
        if not os.path.isfile(preload):
            parser.error(f"--tor-nodelay: {preload} not built (target onionvoice_tor_nodelay)")
        os.environ["LD_PRELOAD"] = preload

    with tempfile.TemporaryDirectory(prefix="onionvoice-e2e-") as tmp:
        work = os.path.abspath(args.work) if args.work else tmp
        os.makedirs(work, exist_ok=True)
        network = args.testnet
        started = False
        if not network:
            network = os.path.join(work, "network")
            subprocess.run([sys.executable, TESTNET, "up", network], check=True,
                           stdout=subprocess.DEVNULL)
            started = True
        try:
            result = run(args, work, network)
        finally:
            if started:
                subprocess.run([sys.executable, TESTNET, "down", network],
                               stdout=subprocess.DEVNULL)
    print(json.dumps(result, indent=None if args.json else 2), flush=True)
    failures = []
    for name in ("caller_to_callee", "callee_to_caller"):
        d = result[name]
        if args.require_pesq is not None and (d["pesq_wb"] is None
                                              or d["pesq_wb"] < args.require_pesq):
            failures.append(f"{name}: pesq_wb {d['pesq_wb']} < {args.require_pesq}")
        if args.require_late is not None and (d["late_pct"] is None
                                              or d["late_pct"] > args.require_late):
            failures.append(f"{name}: late_pct {d['late_pct']} > {args.require_late}")
    for f in failures:
        log(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
