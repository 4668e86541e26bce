#!/usr/bin/env python3
"""PESQ-WB (ITU-T P.862.2) of a degraded WAV against its reference, printed as JSON.

Creates (once) a private virtual environment with the `pesq` and `numpy` packages from PyPI,
re-runs itself inside it, resamples both files to 16 kHz mono with sox and scores them.
    pesq_score.py --venv DIR REFERENCE.wav DEGRADED.wav   ->   {"pesq_wb": 4.12}
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import venv


def ensure_venv(path):
    python = os.path.join(path, "bin", "python3")
    marker = os.path.join(path, ".onionvoice-pesq-ready")
    if not os.path.exists(marker):
        venv.EnvBuilder(with_pip=True, clear=True).create(path)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "numpy", "pesq"], check=True, stdout=sys.stderr)
        with open(marker, "w", encoding="ascii") as f:
            f.write("ok\n")
    return python


def to_16k(path, workdir, name):
    out = os.path.join(workdir, name)
    # -R: repeatable dither, so the same files always get the same score.
    subprocess.run(["sox", "-R", "-q", path, "-r", "16000", "-c", "1", "-b", "16", out], check=True)
    return out


def score(reference, degraded):
    import wave

    import numpy as np
    from pesq import pesq

    def load(path):
        with wave.open(path, "rb") as w:
            data = w.readframes(w.getnframes())
        return np.frombuffer(data, dtype="<i2").astype(np.float64) / 32768.0

    ref = load(reference)
    deg = load(degraded)
    return float(pesq(16000, ref, deg, "wb"))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--venv", required=True)
    parser.add_argument("--inside-venv", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("reference")
    parser.add_argument("degraded")
    args = parser.parse_args()

    if not args.inside_venv:
        python = ensure_venv(os.path.abspath(args.venv))
        os.execv(python, [python, os.path.abspath(__file__), "--inside-venv", "--venv", args.venv,
                          args.reference, args.degraded])

    with tempfile.TemporaryDirectory() as tmp:
        ref = to_16k(args.reference, tmp, "ref.wav")
        deg = to_16k(args.degraded, tmp, "deg.wav")
        print(json.dumps({"pesq_wb": round(score(ref, deg), 3)}))


if __name__ == "__main__":
    main()
