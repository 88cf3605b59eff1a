# SPDX-License-Identifier: MIT
"""check_nccl.py - NCCL through torch.distributed on the real GPUs, NVLink
multicast off (multilib.NO_MULTICAST).

Traces examples/pytorch/nccl_collectives.py with one process (one GPU) and,
where there are two GPUs or more, one process per GPU (up to 8), and
checks each rank's dump (truth: the "truth" line the program prints):

  nccl-w<N>          every collective of the program is in the dump with
                     the right op, calls and bytes (all_reduce, broadcast
                     as ncclBroadcast or ncclBcast, all_gather,
                     reduce_scatter, and send/recv when N > 1); the
                     communicator has the right size and a rank each.
                     torch 2.11 does a one-rank reduce_scatter without NCCL:
                     on one rank it may be absent
  nccl-plugin-w<N>   the profiler plugin loaded (NCCL >= 2.23) and, with
                     2 ranks or more, gave GPU times and an algorithm for
                     the all_reduce (one rank: NCCL takes a shortcut with no
                     kernel events, so only the version is reported)
"""
import json
import os
import re
import subprocess

import gpulib as g
from multilib import NO_MULTICAST

SCRIPT = "examples/pytorch/nccl_collectives.py"
# truth key -> the ops whose host-side rows it counts
OPS = {
    "allreduce": ["ncclAllReduce"],
    "broadcast": ["ncclBroadcast", "ncclBcast"],
    "allgather": ["ncclAllGather"],
    "reducescatter": ["ncclReduceScatter"],
    "send": ["ncclSend"],
    "recv": ["ncclRecv"],
}


def gpu_count():
    rc, out, _ = g.run(["python3", "-c", "import torch; print(torch.cuda.device_count())"],
                     timeout=120)
    return int(out.strip() or 0) if rc == 0 else 0


def trace_ranks(world):
    """Run the script traced; (truth, [json of each dump with NCCL calls])."""
    out_tmpl = os.path.join(g.WORK, f"nccl-w{world}-%p.bin")
    rc, out, err = g.run(["python3", SCRIPT, "--world", str(world)],
                         {"LD_PRELOAD": g.LIB, "GPUTRACE_OUTPUT": out_tmpl, **NO_MULTICAST},
                         timeout=600)
    dumps = re.findall(r"gputrace: wrote (\S+) \(\d+ events, \d+ dropped\)", err)
    if rc != 0 or not dumps:
        raise RuntimeError(f"nccl-w{world}: rc={rc} dumps={dumps} stderr={err[-2000:]}")
    ranks = []
    for dump in dumps:
        rc, js, aerr = g.run([g.ANALYZE, "--json", dump], timeout=300)
        if rc != 0:
            raise RuntimeError(f"nccl-w{world}: analyzer rc={rc} on {dump}: {aerr[-500:]}")
        j = json.loads(js)
        if any(r["calls"] for r in j.get("nccl", [])):
            ranks.append(j)
    return g.truth(out), ranks, out


def op_sum(j, ops, key):
    return sum(r.get(key) or 0 for r in j.get("nccl", []) if r["op"] in ops)


def check_rank(t, j, world):
    """Mismatches of one rank's dump against the truth, as text."""
    bad = []
    for name, ops in OPS.items():
        if world == 1 and name == "reducescatter" and op_sum(j, ops, "calls") == 0:
            continue        # torch 2.11 copies on one rank, without NCCL
        for what in ("calls", "bytes"):
            want, got = t.get(f"{name}_{what}", 0), op_sum(j, ops, what)
            if want != got:
                bad.append(f"{name} {what} {got}/{want}")
    sizes = sorted({c.get("nranks") for c in j.get("nccl_comms", []) if c.get("calls")})
    if world not in sizes:
        bad.append(f"no communicator of {world} ranks (sizes {sizes})")
    return bad


def check_plugin(world, ranks):
    versions = {j.get("nccl_version") for j in ranks}
    ar = [r for j in ranks for r in j["nccl"] if r["op"] == "ncclAllReduce"]
    plugin = sorted({c.get("plugin_version") for j in ranks for c in j.get("nccl_comms", [])
                     if c.get("plugin_version")})
    gpu = sum(r["gpu_calls"] for r in ar)
    algos = sorted({r["algorithm"] for r in ar if r["algorithm"]})
    bus = [r["bus_gbps"] for r in ar if r["bus_gbps"] is not None]
    detail = (f"NCCL {sorted(v for v in versions if v)}, plugin versions {plugin}, "
              f"all_reduce GPU-timed {gpu}/{sum(r['calls'] for r in ar)}, "
              f"algorithms {algos}, bus GB/s {[round(b, 2) for b in bus]}")
    if world == 1:
        ok = bool(plugin)
        detail += " (1 rank: NCCL runs no kernels to time)"
    else:
        ok = bool(plugin) and gpu > 0 and bool(algos)
    g.verdict(f"nccl-plugin-w{world}", ok, detail)


def check_world(world):
    t, ranks, out = trace_ranks(world)
    if t.get("world") != world:
        raise RuntimeError(f"nccl-w{world}: the program ran {t.get('world')} ranks: {out[-500:]}")
    problems = []
    if len(ranks) != world:
        problems.append(f"{len(ranks)} dumps with NCCL calls for {world} ranks")
    for i, j in enumerate(ranks):
        problems += [f"dump {i}: {b}" for b in check_rank(t, j, world)]
    rows = {r["op"]: r["calls"] for r in ranks[0]["nccl"]} if ranks else {}
    made = sorted(f"{c['made_by']}:{c.get('nranks')}" for c in ranks[0].get("nccl_comms", [])) \
        if ranks else []
    g.verdict(f"nccl-w{world}", not problems,
              "; ".join(problems) if problems else
              f"{len(ranks)} rank(s), every collective with its bytes: {rows}; "
              f"communicators {made}")
    if ranks:
        check_plugin(world, ranks)
        g.table.append((f"nccl-w{world}", 0, sum(j["events"] for j in ranks),
                        sum(j["dropped"] for j in ranks)))


def run():
    """The entry point check.py calls."""
    n = gpu_count()
    if n < 1:
        g.verdict("nccl-w1", False, "no GPU visible to torch")
        return
    for world in sorted({1, min(n, 8)}):
        try:
            check_world(world)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            g.verdict(f"nccl-w{world}", False, str(e)[:800])

