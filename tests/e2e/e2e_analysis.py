"""Analysis of one end-to-end call between two onionvoice-cli instances.

Inputs are what the instances wrote: frame logs (--frame-log, CLOCK_MONOTONIC microseconds, one
clock for both processes of the host), the WAV files played and recorded, and the link trace the
caller's relay replayed (--impair). Pure functions; numpy and pesq come from the PESQ venv.
"""
import math
import os
import subprocess
import tempfile
import wave

PACKET_MS = 40
DEADLINE_MS = 400 - PACKET_MS  # ARCHITECTURE.md: one-way delay target minus the packet time


# ---- frame logs ----

class FrameLog:
    def __init__(self, path):
        self.events = {}  # name -> [t_us]
        self.sent = {}    # seq -> [(slot, t_us)] in order
        self.recv = {}    # seq -> (slot, t_us), first copy
        with open(path, encoding="ascii") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                w = line.split()
                if w[0] == "event":
                    self.events.setdefault(w[1], []).append(int(w[2]))
                elif w[0] == "sent":
                    self.sent.setdefault(int(w[1]), []).append((int(w[2]), int(w[3])))
                elif w[0] == "recv":
                    self.recv.setdefault(int(w[1]), (int(w[2]), int(w[3])))

    def first(self, name):
        return self.events.get(name, [None])[0]


def percentile(values, p):
    if not values:
        return None
    v = sorted(values)
    k = min(len(v) - 1, max(0, math.ceil(p / 100.0 * len(v)) - 1))
    return v[k]


def direction_delays(sender, receiver):
    """One-way delay per frame (packet ready at the sender -> first copy at the receiver) for the
    frames sent while both sides were in the call, ending 1 s before the first hang-up so frames
    in flight at the end do not count as lost."""
    start = sender.first("active")
    ends = [t for t in (sender.first("ended"), receiver.first("ended")) if t]
    end = min(ends) - 1_000_000 if ends else None
    delays, lost = [], 0
    for seq, copies in sender.sent.items():
        t_sent = copies[0][1]
        if t_sent < start or (end is not None and t_sent > end):
            continue
        if seq in receiver.recv:
            delays.append((receiver.recv[seq][1] - t_sent) / 1000.0)
        else:
            lost += 1
    frames = len(delays) + lost
    late = lost + sum(1 for d in delays if d > DEADLINE_MS)
    p50 = percentile(delays, 50)
    return {
        "frames": frames,
        "owd_p50_ms": p50,
        "owd_p99_ms": percentile(delays, 99),
        # How far delays stray from their median: the measure impair_accuracy uses, here
        # without a relay, i.e. the private network's own variation.
        "owd_spread_p95_ms": percentile([abs(d - p50) for d in delays], 95) if delays else None,
        "late_pct": 100.0 * late / frames if frames else None,
        "lost_pct": 100.0 * lost / frames if frames else None,
    }


# ---- audio: mouth-to-ear delay and PESQ ----

def read_wav(path):
    import numpy as np
    with wave.open(path, "rb") as w:
        rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
        data = w.readframes(w.getnframes())
    if width != 2:
        raise ValueError(f"{path}: expected 16-bit PCM")
    x = np.frombuffer(data, dtype="<i2").astype(np.float64) / 32768.0
    if channels > 1:
        x = x.reshape(-1, channels).mean(axis=1)
    return rate, x


def write_wav(path, rate, x):
    import numpy as np
    pcm = (np.clip(x, -1, 1) * 32767).astype("<i2").tobytes()
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm)


def lags_s(reference, recording, rate, max_lag_s=2.0, window_s=1.0):
    """Delay of the recording behind the reference, one (window start s, lag s) per 1-s window
    of speech: the lag of the normalised cross-correlation peak (windows without a clear peak are
    skipped)."""
    import numpy as np
    step = 6  # 48 kHz -> 8 kHz is plenty to place a peak within a millisecond or so
    ref = reference[: len(reference) // step * step].reshape(-1, step).mean(axis=1)
    rec = recording[: len(recording) // step * step].reshape(-1, step).mean(axis=1)
    fs = rate / step
    win, max_lag = int(window_s * fs), int(max_lag_s * fs)
    out = []
    for start in range(0, len(ref) - win, win):
        a = ref[start:start + win]
        if np.sqrt(np.mean(a * a)) < 0.01:
            continue  # silence
        b = rec[start:start + win + max_lag]
        if len(b) < win + max_lag:
            break
        n = 1 << int(math.ceil(math.log2(len(b) + win)))
        corr = np.fft.irfft(np.fft.rfft(b, n) * np.conj(np.fft.rfft(a, n)), n)[: max_lag + 1]
        energy = np.convolve(b * b, np.ones(win), "valid")[: max_lag + 1]
        norm = corr / (np.sqrt(energy * np.sum(a * a)) + 1e-12)
        k = int(np.argmax(norm))
        if norm[k] > 0.5:
            out.append((start / fs, k / fs))
    return out


def to_16k(path, workdir, name):
    out = os.path.join(workdir, name)
    subprocess.run(["sox", "-R", "-q", path, "-r", "16000", "-c", "1", "-b", "16", out], check=True)
    return out


def pesq_wb(reference, recording, rate, lags, seconds, segment_s=10.0):
    """PESQ-WB of the recording against the reference, the mean over 10-s segments of the part
    both sides were talking (P.862 is meant for short samples). Each segment is aligned by the
    median delay measured inside it: the jitter buffer changes the delay during a call, which a
    listener does not hear as such but which would misalign one fixed cut."""
    from pesq import pesq
    overall = percentile([lag for _, lag in lags], 50)
    longest = max(lag for _, lag in lags)
    usable = min(len(reference), len(recording) - int(longest * rate), int(seconds * rate))
    scores = []
    with tempfile.TemporaryDirectory() as tmp:
        seg = int(segment_s * rate)
        for i, start in enumerate(range(0, usable - seg // 2, seg)):
            stop = min(usable, start + seg)
            inside = [lag for t, lag in lags if start / rate <= t < stop / rate]
            shift = int(round((percentile(inside, 50) if inside else overall) * rate))
            ref_path = os.path.join(tmp, f"ref{i}.wav")
            deg_path = os.path.join(tmp, f"deg{i}.wav")
            write_wav(ref_path, rate, reference[start:stop])
            write_wav(deg_path, rate, recording[shift + start:shift + stop])
            _, r = read_wav(to_16k(ref_path, tmp, f"r{i}.wav"))
            _, d = read_wav(to_16k(deg_path, tmp, f"d{i}.wav"))
            try:
                scores.append(float(pesq(16000, r, d, "wb")))
            except Exception:  # a segment without enough speech: PESQ refuses it
                continue
    return round(sum(scores) / len(scores), 3) if scores else None


def audio_direction(played, recorded, sender, receiver, seconds):
    rate, ref = read_wav(played)
    rate_rec, rec = read_wav(recorded)
    if rate != rate_rec:
        raise ValueError("played and recorded WAVs differ in rate")
    lags = lags_s(ref, rec, rate)
    if not lags:
        return {"mouth_to_ear_p50_ms": None, "pesq_wb": None}
    lag = percentile([lag for _, lag in lags], 50)
    # Recording time = reference time + lag; both started with their instance's audio.
    offset_ms = (receiver.first("audio_start") - sender.first("audio_start")) / 1000.0
    return {
        "mouth_to_ear_p50_ms": round(lag * 1000.0 + offset_ms, 1),
        "pesq_wb": pesq_wb(ref, rec, rate, lags, seconds),
    }


# ---- accuracy of the impairment relay against the trace ----

def read_trace(path):
    """slot -> list of lives {samples: [(t, ab, ba)], down: t or None}."""
    slots = {}
    with open(path, encoding="ascii") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("slot,"):
                continue
            s, t, ab, ba = line.split(",")
            lives = slots.setdefault(int(s), [])
            if ab == "down":
                if lives:
                    lives[-1]["down"] = float(t)
                continue
            if not lives or lives[-1]["down"] is not None:
                lives.append({"samples": [], "down": None})
            lives[-1]["samples"].append((float(t), float(ab), float(ba)))
    return slots


def life_at(lives, t):
    for i, life in enumerate(lives):
        up = life["samples"][0][0]
        if t >= up and (life["down"] is None or t < life["down"]):
            return i
    return None


def delay_at(life, column, t):
    s = life["samples"]
    if t <= s[0][0]:
        return s[0][column]
    for a, b in zip(s, s[1:]):
        if a[0] <= t < b[0]:
            f = (t - a[0]) / (b[0] - a[0])
            return a[column] + f * (b[column] - a[column])
    return s[-1][column]


def impair_accuracy(trace_path, caller, callee):
    """Per record: measured one-way delay minus what the trace says the relay adds (with the
    stream's head-of-line blocking), minus the median of that difference on the same link (each
    link is a circuit of the private network with its own path delay). Only records whose first
    copy came on the link they were sent on count."""
    trace = read_trace(trace_path)
    t0 = caller.first("impair_t0")
    result = {}
    for name, sender, receiver, column in (("caller_to_callee", caller, callee, 1),
                                           ("callee_to_caller", callee, caller, 2)):
        residuals = {}  # (slot, life) -> [ms]: each link is a circuit with its own path delay
        release = {}  # (slot, life) -> expected release of the stream's previous record, us
        copies = sorted((t, seq, slot) for seq, sent in sender.sent.items() for slot, t in sent)
        for t_sent, seq, slot in copies:  # every record occupies its stream (HOL)
            if t_sent < t0 or slot not in trace:
                continue
            t_ms = (t_sent - t0) / 1000.0
            life = life_at(trace[slot], t_ms)
            if life is None:
                continue
            hold = delay_at(trace[slot][life], column, t_ms) * 1000.0
            expected = max(t_sent + hold, release.get((slot, life), 0))
            release[(slot, life)] = expected
            first = receiver.recv.get(seq)
            if first and first[0] == slot and sender.sent[seq][0] == (slot, t_sent):
                residuals.setdefault((slot, life), []).append((first[1] - expected) / 1000.0)
        if not residuals:
            continue
        bases = {k: percentile(v, 50) for k, v in residuals.items()}
        errors = [abs(r - bases[k]) for k, v in residuals.items() for r in v]
        result[name] = {
            "records": len(errors),
            "path_delay_p50_ms": round(percentile(list(bases.values()), 50), 2),
            "error_p50_ms": round(percentile(errors, 50), 2),
            "error_p95_ms": round(percentile(errors, 95), 2),
        }
    return result

