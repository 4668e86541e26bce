#!/usr/bin/env python3
"""Acceptance check of the audio path with onionvoice-cli audio-loop (PESQ-WB targets).

Generates the test speech, then runs the clean path, random packet loss (5 % and 10 %, median of
three seeds) and, when the simulator is built, the adaptive policy over generated link traces.
Prints every JSON report and fails if a target is missed.
    audio_quality_check.py --cli PATH --speech-script PATH --workdir DIR [--sim PATH]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

TARGETS = {"clean": 3.9, "loss5": 3.2, "loss10": 2.8, "adaptive": 3.6}


def loop(cli, speech, out, *extra):
    cmd = [cli, "audio-loop", "--in", speech, "--out", out, *extra]
    result = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True)
    report = json.loads(result.stdout)
    print(" ".join(cmd[1:]), "->", json.dumps(report, sort_keys=True), flush=True)
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--speech-script", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--sim")
    args = parser.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    speech = os.path.join(args.workdir, "speech.wav")
    subprocess.run([args.speech_script, speech], check=True)
    out = os.path.join(args.workdir, "out.wav")

    scores = {"clean": loop(args.cli, speech, out)["pesq_wb"]}
    for pct in (5, 10):
        runs = [loop(args.cli, speech, out, "--loss", str(pct), "--seed", str(s))["pesq_wb"]
                for s in (1, 2, 3)]
        scores[f"loss{pct}"] = statistics.median(runs)
    if args.sim:
        if not os.path.exists(args.sim):
            # Named but missing: the adaptive target must not pass by being skipped.
            sys.exit(f"simulator not found: {args.sim}")
        traces = os.path.join(args.workdir, "traces")
        subprocess.run([args.sim, "generate", "--out", traces, "--calls", "3", "--minutes", "2",
                        "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
        reports = [loop(args.cli, speech, out, "--trace", os.path.join(traces, name),
                        "--policy", "adaptive")
                   for name in sorted(os.listdir(traces)) if name.endswith(".csv")]
        scores["adaptive"] = statistics.median(r["pesq_wb"] for r in reports)
        print("adaptive mouth-to-ear p95 ms:",
              [r["mouth_to_ear_ms"]["p95"] for r in reports])

    failed = [k for k, v in scores.items() if v < TARGETS[k]]
    for key, value in scores.items():
        print(f"{key}: PESQ-WB {value:.3f} (target {TARGETS[key]})")
    if failed:
        print("missed:", ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
