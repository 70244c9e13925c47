#!/usr/bin/env python3
"""An independent per-hop model of a system's ICI traffic, to check the
simulator's network (lib/Sim/IciNetwork.cpp) against.

It shares no code with the simulator and makes different choices where the
network model leaves room: time is continuous (a packet takes size /
bytes_per_cycle cycles on a link, no rounding), a source injects a DMA's
packets at link rate, and every link is a FIFO in packet arrival order,
simulated event by event (the simulator instead fixes a DMA's timing at
its ISSUE, its packets taking the gaps that earlier DMAs left). Routes
follow the documented rules (docs/config.md, "ICI": ring the shorter way,
ties up; tori in dimension order X, Y, Z; full direct), written again here.

What it takes from the simulator's metrics.json (`accel-replay run`) is what
the network does not decide: each chip's remote DMAs (source, destination,
bytes, T_b = base_end - issue - hops x hop_latency), the WAITs on them, its
semaphore waits and the signals each consumed, and the local time between
them. Each of these events keeps its distance from the previous event's
resume (the program's own instructions and local DMAs), while every remote
DMA's completion, and so every wait's resume, is recomputed by this model:

    model(e)  = resume'(previous event) + (sim(e) - resume(previous event))
    resume'   = model(e) for an ISSUE; for a WAIT / sem.wait, the later of
                model(e) and the model completion of the DMA(s) it needs
    end'      = resume'(last event) + (end_cycle - resume(last event))

HBM is not modelled (use programs whose remote DMAs move VMEM to VMEM, or
whose HBM shares are small).

    network_model.py RUN_DIR/metrics.json [--switching cut_through]
                     [--packet-bytes N] [--json]

prints the model's system cycles next to the simulator's and their ratio.
"""
import argparse
import heapq
import json
import math
import sys


class Topology:
    def __init__(self, kind, chips, dims):
        self.kind, self.chips = kind, chips
        if kind == "torus2d":
            self.dims = list(dims) + [1]
        elif kind == "torus3d":
            self.dims = list(dims)
        else:
            self.dims = [chips, 1, 1]

    @staticmethod
    def _step(a, b, n):
        """+1 or -1: the shorter way from a to b on a cycle of n, ties up."""
        up = (b - a) % n
        return 1 if up <= n - up else -1

    def route(self, src, dst):
        """The directed links (as (from, to) chip pairs) from src to dst."""
        if src == dst:
            return []
        if self.kind == "full":
            return [(src, dst)]
        if self.kind == "ring":
            links, at, d = [], src, self._step(src, dst, self.chips)
            while at != dst:
                nxt = (at + d) % self.chips
                links.append((at, nxt))
                at = nxt
            return links
        X, Y, Z = self.dims

        def coords(c):
            return [c % X, (c // X) % Y, c // (X * Y)]

        def index(p):
            return (p[2] * Y + p[1]) * X + p[0]

        here, there, links = coords(src), coords(dst), []
        for dim, n in enumerate((X, Y, Z)):
            d = self._step(here[dim], there[dim], n)
            while here[dim] != there[dim]:
                a = index(here)
                here[dim] = (here[dim] + d) % n
                links.append((a, index(here)))
        return links


class Network:
    """Links as FIFOs in packet arrival order, simulated event by event."""

    def __init__(self, hop, bpc, packet, switching, arbitration="fifo"):
        self.hop, self.bpc, self.packet = hop, bpc, packet
        self.oldest_first = arbitration == "oldest"
        self.cut_through = switching == "cut_through"
        self.events = []  # (time, seq, callback, args)
        self.seq = 0
        self.queue = {}  # link -> heap of (arrival, seq, packet)
        self.busy = {}   # link -> bool
        self.load = {}   # link -> busy time

    def at(self, time, fn, *args):
        self.seq += 1
        heapq.heappush(self.events, (time, self.seq, fn, args))

    def send(self, ready, links, nbytes, done):
        """Injects a transfer's packets at link rate from `ready`; calls
        done(time) when the last one has arrived."""
        count = max(1, math.ceil(nbytes / self.packet))
        state = {"left": count, "last": 0.0}
        t = ready
        for j in range(count):
            size = min(self.packet, nbytes - j * self.packet)
            pkt = {"links": links, "hop": 0, "cycles": size / self.bpc,
                   "state": state, "done": done, "born": ready}
            self.at(t, self.arrive, pkt)
            t += pkt["cycles"]

    def arrive(self, now, pkt):
        link = pkt["links"][pkt["hop"]]
        self.seq += 1
        key = pkt["born"] if self.oldest_first else now
        heapq.heappush(self.queue.setdefault(link, []), (key, self.seq, pkt))
        if not self.busy.get(link):
            self.serve(now, link)

    def serve(self, now, link):
        q = self.queue.get(link)
        if not q:
            self.busy[link] = False
            return
        _, _, pkt = heapq.heappop(q)
        self.busy[link] = True
        cycles = pkt["cycles"]
        self.load[link] = self.load.get(link, 0.0) + cycles
        self.at(now + cycles, self.serve, link)
        last = pkt["hop"] + 1 == len(pkt["links"])
        pkt["hop"] += 1
        if last:
            self.at(now + cycles + self.hop, self.deliver, pkt)
        elif self.cut_through:
            self.at(now + self.hop, self.arrive, pkt)
        else:
            self.at(now + cycles + self.hop, self.arrive, pkt)

    def deliver(self, now, pkt):
        st = pkt["state"]
        st["left"] -= 1
        st["last"] = max(st["last"], now)
        if st["left"] == 0:
            pkt["done"](st["last"])

    def run(self):
        while self.events:
            time, _, fn, args = heapq.heappop(self.events)
            fn(time, *args)


def chip_events(chip, hop):
    """The chip's events in program order: (sim time, sim resume, kind,
    payload)."""
    events = []
    for d in chip.get("dmas", []):
        key = (d["chip"], d["id"])
        if "hops" not in d:
            # A local DMA that signals: its own timing, shifted with its
            # chip.
            if "signal" in d:
                events.append((d["issue"], d["issue"], 0,
                               ("local", key, d["complete"] - d["issue"])))
            continue
        tb = d["base_end"] - d["issue"] - d["hops"] * hop
        events.append((d["issue"], d["issue"], 0, ("issue", key, d, tb)))
        if d.get("wait") is not None:
            events.append((d["wait"], max(d["wait"], d["complete"]), 1,
                           ("wait", [key])))
    for w in chip.get("sem_waits", []):
        needs = [(s["chip"], s["dma"]) for s in w["signals"]]
        events.append((w["ready"], w["resume"], 1, ("wait", needs)))
    events.sort(key=lambda e: (e[0], e[2]))
    return events


def model(metrics, switching=None, packet=None, arbitration="fifo"):
    system = metrics["system"]
    ici = system["ici"]
    hop = ici["hop_latency"]
    topo = Topology(system["topology"], system["chips"], system.get("dims", []))
    net = Network(hop, ici["bytes_per_cycle"], packet or ici["packet_bytes"],
                  switching or ici["switching"], arbitration)
    complete = {}  # (chip, id) -> model completion
    waiting = {}   # (chip, id) -> [chip process]
    ends = []

    def finish(key, time):
        complete[key] = time
        for proc in waiting.pop(key, []):
            proc.go()

    class Chip:
        def __init__(self, c, chip):
            self.c, self.events = c, chip_events(chip, hop)
            self.end_cycle = chip["end_cycle"]
            self.i, self.sim_prev, self.model_prev = 0, 0, 0.0

        def go(self, now=None):
            while self.i < len(self.events):
                sim, resume, _, what = self.events[self.i]
                t = self.model_prev + (sim - self.sim_prev)
                if what[0] == "issue":
                    _, key, d, tb = what
                    links = topo.route(d["src_chip"], d["dst_chip"])

                    net.at(t + tb, lambda now, l=links, n=d["bytes"], k=key:
                           net.send(now, l, n, lambda time: finish(k, time)))
                    self.sim_prev, self.model_prev = sim, t
                elif what[0] == "local":
                    _, key, took = what
                    net.at(t + took, lambda now, k=key: finish(k, now))
                    self.sim_prev, self.model_prev = sim, t
                else:
                    missing = [k for k in what[1] if k not in complete]
                    if missing:
                        waiting.setdefault(missing[0], []).append(self)
                        return
                    ready = max([t] + [complete[k] for k in what[1]])
                    self.sim_prev, self.model_prev = resume, ready
                self.i += 1
            ends.append(self.model_prev + (self.end_cycle - self.sim_prev))

    procs = [Chip(c, chip) for c, chip in enumerate(metrics["chips"])]
    for p in procs:
        p.go()
    net.run()
    if len(ends) != len(procs):
        sys.exit("network_model: some chip never finished (a wait on a DMA "
                 "that never completed)")
    return {"cycles": max(ends), "busiest_link_cycles":
            max(net.load.values()) if net.load else 0.0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("metrics")
    ap.add_argument("--switching", choices=["cut_through", "store_and_forward"])
    ap.add_argument("--packet-bytes", type=int)
    ap.add_argument("--arbitration", choices=["fifo", "oldest"],
                    default="fifo")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with open(a.metrics) as f:
        m = json.load(f)
    if "system" not in m:
        sys.exit("network_model: %s is not a system's metrics.json" % a.metrics)
    r = model(m, a.switching, a.packet_bytes, a.arbitration)
    sim = m["total_cycles"]
    out = {"sim_cycles": sim, "model_cycles": round(r["cycles"]),
           "ratio": round(sim / r["cycles"], 4) if r["cycles"] else 0,
           "model_busiest_link_cycles": round(r["busiest_link_cycles"]),
           "sim_busiest_link_cycles":
               m["system"]["ici"]["busiest_link_busy_cycles"]}
    if a.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print("sim %d cycles, model %d cycles, sim/model %.4f; busiest link "
              "%d (sim) vs %d (model) cycles" % (
                  out["sim_cycles"], out["model_cycles"], out["ratio"],
                  out["sim_busiest_link_cycles"],
                  out["model_busiest_link_cycles"]))


if __name__ == "__main__":
    main()
