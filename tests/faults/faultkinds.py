"""The faults of faults.py (issue 12): each picks its target from the running call (a FaultRun),
injects the fault, undoes it where it can, and judges the call by its acceptance criterion.
"""

import os
import signal
import sys
import threading
import time

import torfaults

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import impairctl  # noqa: E402  (tests/e2e: the control socket of `call --impair`)

LINKS = 12
NETWORK_LOSS_TIMEOUT_S = 20.0  # EngineConfig::networkLossTimeout
# Single-relay faults (issue 12, acceptance 1): late frames and the longest gap allowed.
SINGLE_RELAY_LATE_PCT = 2.0
SINGLE_RELAY_GAP_MS = 400
BROKEN_LINKS_GAP_MS = 600


# ---- faults: each picks its target from the running call and injects; `restore` undoes ----

class Fault:
    name = ""
    single_relay = False
    uses_link_relay = False
    call_after_fault_s = 0  # the call lasts at least this long after the fault

    def __init__(self, run):
        self.run = run
        self.details = {}

    def inject(self):
        raise NotImplementedError

    def restore(self):
        pass

    def callee_env(self):
        """Extra environment of the callee's onionvoice-cli (and its tor)."""
        return {}

    def criteria(self, result):
        """(passed, description) for the acceptance criterion of this fault."""
        if self.single_relay:
            ok = (result["call_continued"] and result["late_pct"] is not None and
                  result["late_pct"] <= SINGLE_RELAY_LATE_PCT and
                  result["longest_gap_ms"] is not None and
                  result["longest_gap_ms"] <= SINGLE_RELAY_GAP_MS)
            return ok, (f"call goes on, late <= {SINGLE_RELAY_LATE_PCT} %, "
                        f"no gap > {SINGLE_RELAY_GAP_MS} ms")
        return result["call_continued"], "call goes on"


class NoFault(Fault):
    """The same call without a fault: what the network and the machine cost by themselves."""
    name = "none"
    single_relay = True  # held to the same bar as the single-relay faults

    def inject(self):
        pass


class RelayFault(Fault):
    """A plain relay carrying the most of the call's circuits (both sides)."""
    single_relay = True

    def target(self):
        circuits = self.run.call_circuits()
        load = torfaults.relay_load(self.run.network, circuits["caller"] + circuits["callee"])
        relays = {n.nick for n in self.run.network.relays()}
        candidates = [(count, nick) for nick, count in load.items() if nick in relays]
        if not candidates:
            raise RuntimeError(f"no plain relay carries the call's circuits: {dict(load)}")
        count, nick = max(candidates)
        weights = self.run.weights
        self.details.update(target=nick, circuits_through_target=count,
                            call_circuits=len(circuits["caller"]) + len(circuits["callee"]),
                            target_weight_pct=round(100.0 * weights.get(nick, 0) /
                                                    max(sum(weights.values()), 1), 1))
        return nick


class RelayKill(RelayFault):
    name = "relay_kill"
    killed = None

    def inject(self):
        self.killed = self.target()
        self.run.network.kill(self.killed)

    def restore(self):
        if self.killed:
            self.run.network.restart(self.killed)


class GuardKill(RelayKill):
    """The relay the most of the caller's call circuits enter the network at. The private network's
    clients run with UseEntryGuards 0 (tests/testnet: guards on a network this small make circuits
    fail), so the caller's entry relays stand for its guards. Plain relays only: the authorities
    are this network's only directory servers and HSDirs, which a guard of the real network is
    not; killing one tests the network's directory, not the call."""
    name = "guard_kill"

    def target(self):
        circuits = self.run.call_circuits()["caller"]
        relays = {n.nick for n in self.run.network.relays()}
        entries = [(count, nick) for nick, count in
                   torfaults.entry_load(self.run.network, circuits).items() if nick in relays]
        if not entries:
            raise RuntimeError("no plain relay is an entry of the caller's call circuits")
        count, nick = max(entries)
        self.details.update(target=nick, caller_circuits_entering_there=count,
                            caller_circuits=len(circuits))
        return nick


class RelayStop(RelayFault):
    name = "relay_stop"
    seconds = 5.0

    def inject(self):
        self.details["stopped_s"] = self.seconds
        self.run.network.stop_for(self.target(), self.seconds)


class RelayControlFault(Fault):
    """Faults injected at the caller's link relay (`call --impair` with a zero-delay trace, so the
    links are those of the unimpaired network) through its control socket."""
    uses_link_relay = True

    def control(self, command):
        reply = impairctl.send(self.run.impair_socket, command)
        if reply.startswith("error"):
            raise RuntimeError(f"link relay: {command}: {reply}")
        return reply


class BreakSixLinks(RelayControlFault):
    name = "links_break6"
    slots = [0, 2, 4, 6, 8, 10]

    def inject(self):
        self.details["broken_slots"] = self.slots
        self.control("break " + " ".join(map(str, self.slots)))

    def criteria(self, result):
        ok = (result["call_continued"] and result["longest_gap_ms"] is not None and
              result["longest_gap_ms"] <= BROKEN_LINKS_GAP_MS)
        return ok, f"call goes on, no gap > {BROKEN_LINKS_GAP_MS} ms"


class DelaySpike(RelayControlFault):
    """3 s more delay, for 3 s, on the link the caller's scheduler used most in the last second."""
    name = "delay_spike"
    single_relay = True
    spike_ms = 3000
    seconds = 3

    def inject(self):
        stats = [e for _, e in self.run.caller.statistics()][-2:]
        sent = {l["slot"]: l["sent"] for l in stats[0]["links"]}
        favoured = max(stats[1]["links"], key=lambda l: l["sent"] - sent.get(l["slot"], 0))
        self.details.update(spiked_slot=favoured["slot"], spike_ms=self.spike_ms,
                            spike_s=self.seconds)
        self.control(f"delay {favoured['slot']} {self.spike_ms} {self.seconds}")


class CallerTorRestart(Fault):
    """SIGKILL of the caller's tor; the engine's TorLauncher starts a new one with back-off."""
    name = "tor_restart"

    def inject(self):
        tor = torfaults.AppTor(self.run.caller_dir)
        pid = tor.pid()
        if not pid:
            raise RuntimeError("the caller's tor is not running")
        self.details["killed_tor_pid"] = pid
        killed = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        threading.Thread(target=self.watch_restart, args=(tor, pid, killed), daemon=True).start()

    def watch_restart(self, tor, old_pid, killed):
        """How long until the engine's new tor is up again (bootstrapped), whatever the call does:
        tells a slow tor from a call that does not use it."""
        deadline = killed + 60
        while time.monotonic() < deadline:
            pid = tor.pid()
            if pid and pid != old_pid:
                try:
                    phase = tor.getinfo("status/bootstrap-phase")[0]
                except (OSError, RuntimeError, ConnectionError, IndexError):
                    phase = ""
                if "PROGRESS=100" in phase:
                    self.details["tor_back_s"] = round(time.monotonic() - killed, 1)
                    return
            time.sleep(0.2)

    def criteria(self, result):
        # Either outcome of the call is a correct one (which one happened, and why, is in the
        # report), but the engine's tor must be back: without that a dead TorLauncher passed.
        ok = ((result["call_continued"] or result["end_reason"] == "network-failure") and
              "tor_back_s" in self.details)
        return ok, ("tor back within 60 s; the call goes on once links are rebuilt, or ends "
                    "with network-failure")


class PeerKill(Fault):
    """The callee's machine vanishes: SIGKILL of its onionvoice-cli (its tor, owned by it, goes
    too). The caller must end with network-failure within the engine's network-loss timeout."""
    name = "peer_kill"
    # The caller's own hang-up must not come before the network-loss timeout it is judged by.
    call_after_fault_s = NETWORK_LOSS_TIMEOUT_S + 10

    def inject(self):
        self.details["killed_pid"] = self.run.callee.proc.pid
        os.kill(self.run.callee.proc.pid, signal.SIGKILL)

    def criteria(self, result):
        # No upper bound on the harness's clock (a loaded machine reads the summary late): the
        # caller hangs up by itself call_after_fault_s after the fault, so network-failure means
        # the engine's own timeout fired first; the lower bound says it waited that timeout out.
        ended = result.get("ended_after_fault_s")
        ok = (result["end_reason"] == "network-failure" and ended is not None and
              ended >= NETWORK_LOSS_TIMEOUT_S - 2.0)
        return ok, (f"caller ends with network-failure after its {NETWORK_LOSS_TIMEOUT_S:.0f}-s "
                    f"network-loss timeout, before its own hang-up at "
                    f"{self.call_after_fault_s:.0f} s")


class CalleeSuspend(Fault):
    """The callee's laptop lid closes mid-call: its onionvoice-cli and tor stop for 30 s with their
    monotonic clocks (torfaults.SuspendClock: a real suspend stops CLOCK_MONOTONIC, SIGSTOP alone
    does not), longer than the network-loss timeout. Its TCP connections survive (the kernel
    holds what arrives). The caller must end with network-failure after its timeout; the callee,
    at its resume, must end too, at once and with network-failure: the caller's HangUp waiting in
    its buffers came from the caller's engine giving up on it, not from someone hanging up."""
    name = "callee_suspend"
    seconds = NETWORK_LOSS_TIMEOUT_S + 10  # --suspend-seconds: longer, by hand
    # Ends within this of its resume: half the network-loss timeout it waited before (a resumed
    # machine's monotonic clock did not count the suspend).
    end_after_resume_s = NETWORK_LOSS_TIMEOUT_S / 2
    call_after_fault_s = NETWORK_LOSS_TIMEOUT_S + 10
    cut = False

    def __init__(self, run):
        super().__init__(run)
        self.seconds = run.args.suspend_seconds or self.seconds
        self.clock = None

    def callee_env(self):
        # Made here, in the fault's run: a missing library fails this fault, not the harness.
        self.clock = torfaults.SuspendClock(
            os.path.join(self.run.args.build, "tests", "faults", "libonionvoice_suspendclock.so"),
            os.path.join(self.run.dir, "suspend-clock"))
        return self.clock.env()

    def inject(self):
        callee = self.run.callee
        tor = torfaults.AppTor(self.run.callee_dir)
        pids = [callee.proc.pid, tor.pid()]
        keep = [tor.control_port()]  # the app's own control connection is on this machine
        cut = (lambda: self.details.update(connections_cut=torfaults.cut_connections(pids[1], keep))
               ) if self.cut else None
        self.details["suspended_s"] = self.seconds
        resumed = self.clock.suspend(pids, self.seconds, cut)
        # serve goes on after the call: its summary is the callee's end of it.
        try:
            summary = callee.wait_event(lambda e: e.get("event") == "summary",
                                        NETWORK_LOSS_TIMEOUT_S + 20, "the callee's end of the call")
            self.details["callee_end_reason"] = summary.get("end_reason")
            ended = next(t for t, e in callee.events if e is summary)
            self.details["callee_ended_after_resume_s"] = round(ended - resumed, 1)
        except RuntimeError as e:
            self.details["callee_end_reason"] = None
            self.details["callee_error"] = str(e)

    def criteria(self, result):
        ended = result.get("ended_after_fault_s")
        after_resume = self.details.get("callee_ended_after_resume_s")
        ok = (result["end_reason"] == "network-failure" and ended is not None and
              ended >= NETWORK_LOSS_TIMEOUT_S - 2.0 and
              self.details.get("callee_end_reason") == "network-failure" and
              after_resume is not None and after_resume <= self.end_after_resume_s)
        return ok, (f"caller ends with network-failure after its {NETWORK_LOSS_TIMEOUT_S:.0f}-s "
                    f"network-loss timeout; the callee ends with network-failure within "
                    f"{self.end_after_resume_s:.0f} s of its resume")


class CalleeSuspendLost(CalleeSuspend):
    """callee_suspend, and the network forgets the sleeping machine: every TCP connection of the
    callee's tor is cut at both ends (the relays' side closes), so nothing of the caller's end
    reaches the callee. Before, the callee showed the call active for 20 s after its resume."""
    name = "callee_suspend_lost"
    cut = True


FAULTS = [NoFault, RelayKill, GuardKill, RelayStop, BreakSixLinks, DelaySpike, CallerTorRestart,
          PeerKill, CalleeSuspend, CalleeSuspendLost]
# callee_suspend_lost is left to the full suite: it needs root and a kernel that lets `ss -K`
# destroy sockets, which a CI machine (a container without CAP_NET_ADMIN) may not give.
# callee_suspend alone fails on the code before the fix (tests/faults in README).
QUICK = ["relay_kill", "links_break6", "peer_kill", "callee_suspend"]
