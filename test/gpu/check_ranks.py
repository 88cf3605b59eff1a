# SPDX-License-Identifier: MIT
"""check_ranks.py - the exports and the several-ranks analysis on the
real GPUs, with examples/pytorch/ddp_train.py (DDP, NCCL), NVLink
multicast off (multilib.NO_MULTICAST).

  ranks-exit-<job>   the traced job exited 0 (its dumps are checked anyway)
  ranks-outputs-w1   one rank: --trace is valid JSON with kernels on GPU
                     stream tracks and arrows from launches to kernels (the
                     bind_ids of both ends match), --sqlite (where the
                     analyzer was built with SQLite) has as many launches
                     as the JSON report, --html has its sections
  ranks-diff-w1      a run whose steps sleep 30 ms more, --diff against a
                     plain run: wall time and step time grew
  ranks-skew-w<N>    where there are 2 GPUs or more, one rank per GPU (up
                     to 8), rank 1 sleeping 30 ms per step: the folder of
                     dumps analyzed together matches every step's
                     all-reduce across the ranks, names rank 1 in the
                     rank-skew finding, and the other ranks waited for it
                     at least half of steps x 30 ms each
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess

import gpulib as g
from multilib import NO_MULTICAST

SCRIPT = "examples/pytorch/ddp_train.py"
STEPS = 40
SLOW_MS = 30


def gpu_count():
    rc, out, _ = g.run(["python3", "-c", "import torch; print(torch.cuda.device_count())"],
                       timeout=120)
    return int(out.strip() or 0) if rc == 0 else 0


def job(name, world, extra=()):
    """Run the DDP job traced into its own folder: (truth, folder, dumps)."""
    folder = os.path.join(g.WORK, name)
    os.makedirs(folder, exist_ok=True)
    rc, out, err = g.run(["python3", SCRIPT, "--world", str(world), "--steps", str(STEPS),
                          *extra], {"LD_PRELOAD": g.LIB, **NO_MULTICAST,
                                    "GPUTRACE_OUTPUT": os.path.join(folder, "r-%p.bin")},
                         timeout=900)
    dumps = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".bin"))
    # the traced program must run as it does untraced: its exit is a verdict
    # of its own, and what it left is still checked
    g.verdict(f"ranks-exit-{name}", rc == 0, f"rc={rc}, {len(dumps)} dumps"
              + ("" if rc == 0 else f"; stderr: {err[-600:]}"))
    if not dumps:
        raise RuntimeError(f"{name}: rc={rc} no dumps; stderr={err[-1500:]}")
    return g.truth(out), folder, dumps


def analyze(*args, timeout=600):
    rc, out, err = g.run([g.ANALYZE, *args], timeout=timeout)
    if rc != 0:
        raise RuntimeError(f"gputrace-analyze {' '.join(args)}: rc={rc} {err[-800:]}")
    return out


def main_dump(dumps):
    """The dump with the most kernel launches (the training process)."""
    best, most = None, -1
    for d in dumps:
        j = json.loads(analyze("--json", d))
        n = sum(k["calls"] for k in j["kernels"])
        if n > most:
            best, most = (d, j), n
    return best


def check_outputs():
    t, folder, dumps = job("w1", 1)
    dump, j = main_dump(dumps)
    problems = []
    trace = os.path.join(folder, "t.json")
    analyze("--trace", trace, dump)
    ev = json.load(open(trace))["traceEvents"]
    kernels = [e for e in ev if e.get("cat") == "kernel"]
    outs = {e["bind_id"] for e in ev if e.get("flow_out")}
    ins = {e["bind_id"] for e in kernels if e.get("flow_in")}
    if not kernels:
        problems.append("no GPU kernel slices (CUPTI records missing?)")
    if not outs & ins:
        problems.append(f"no arrow joins a launch to its kernel ({len(outs)} out, {len(ins)} in)")
    db = os.path.join(folder, "t.db")
    rc, _, err = g.run([g.ANALYZE, "--sqlite", db, dump], timeout=600)
    nl = nk = "-"
    if "built without SQLite" in err:
        nl = nk = "not built (no libsqlite3-dev here)"
    elif rc != 0:
        problems.append(f"--sqlite rc={rc}: {err[-300:]}")
    else:
        con = sqlite3.connect(db)
        nl = con.execute("SELECT count(*) FROM launches").fetchone()[0]
        nk = con.execute("SELECT count(*) FROM gpu_kernels").fetchone()[0]
        con.close()
        want = sum(k["calls"] for k in j["kernels"])
        if nl != want:
            problems.append(f"sqlite launches {nl}, report {want}")
    html = os.path.join(folder, "r.html")
    analyze("--html", html, dump)
    page = open(html, encoding="utf-8").read()
    for part in ('id="verdict"', 'class="timeline"', 'class="busy"', 'id="table-kernels"',
                 'id="chart-kernels"', 'class="steps"'):
        if part not in page:
            problems.append(f"html lacks {part}")
    if "http://" in page or "https://" in page or "<script" in page:
        problems.append("html refers to something outside")
    g.verdict("ranks-outputs-w1", not problems, "; ".join(problems) if problems else
              f"trace: {len(ev)} events, {len(kernels)} kernels, {len(outs & ins)} arrows; "
              f"sqlite: {nl} launches, {nk} GPU kernels; html {len(page)} bytes")
    return dump


def check_diff(before):
    t, folder, dumps = job("w1-slow", 1, ["--slow-rank", "0", "--slow-ms", str(SLOW_MS)])
    after, _ = main_dump(dumps)
    d = json.loads(analyze("--diff", "--json", before, after))
    m = d["measures"]
    wall = (m["wall_ns"]["before"], m["wall_ns"]["after"])
    step = (m["step_ns_mean"]["before"], m["step_ns_mean"]["after"])
    ok = wall[1] > wall[0] and (step[0] is None or step[1] - step[0] > SLOW_MS * 0.5e6)
    g.verdict("ranks-diff-w1", ok, f"wall {wall}, step mean {step} (after sleeps {SLOW_MS} "
              f"ms per step); verdicts {d['before'].get('verdict')!r} -> "
              f"{d['after'].get('verdict')!r}"[:700])


def check_skew(world):
    t, folder, dumps = job(f"w{world}-skew", world,
                           ["--slow-rank", "1", "--slow-ms", str(SLOW_MS)])
    j = json.loads(analyze("--json", folder))
    ranks = [r for r in j["ranks"] if r["collectives"]]
    f = j.get("finding") or {}
    waits = sorted(r["waited_ns"] for r in ranks if r["rank"] != 1)
    floor = STEPS * SLOW_MS * 1e6 / 2
    problems = []
    if len(ranks) != world:
        problems.append(f"{len(ranks)} ranks with collectives, {world} expected")
    if j["collectives_matched"] < STEPS:
        problems.append(f"{j['collectives_matched']} collectives matched, >= {STEPS} expected")
    if f.get("rank") != 1:
        problems.append(f"finding names rank {f.get('rank')}, not 1")
    if not waits or waits[0] < floor:
        problems.append(f"waits {waits} below {floor:.0f} ns")
    trace = os.path.join(folder, "job.json")
    analyze("--trace", trace, folder)
    pids = {e["pid"] for e in json.load(open(trace))["traceEvents"]}
    if len(pids) < world:
        problems.append(f"timeline has {len(pids)} processes")
    g.verdict(f"ranks-skew-w{world}", not problems, "; ".join(problems) if problems else
              f"{j['collectives_matched']} collectives matched; clock: {j['clock']}; "
              f"finding: {f.get('text', '')[:300]}")
    g.table.append((f"ranks-skew-w{world}", 0, sum(r["events"] for r in j["ranks"]),
                    sum(r["dropped"] for r in j["ranks"])))


def run():
    """The entry point check.py calls."""
    n = gpu_count()
    if n < 1:
        g.verdict("ranks-outputs-w1", False, "no GPU visible to torch")
        return
    before = None
    for name, fn in (("ranks-outputs-w1", check_outputs),):
        try:
            before = fn()
        except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError,
                sqlite3.Error) as e:
            g.verdict(name, False, str(e)[:800])
    if before:
        try:
            check_diff(before)
        except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
            g.verdict("ranks-diff-w1", False, str(e)[:800])
    if n >= 2:
        world = min(n, 8)
        try:
            check_skew(world)
        except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
            g.verdict(f"ranks-skew-w{world}", False, str(e)[:800])
    shutil.rmtree(os.path.join(g.WORK, "w1"), ignore_errors=True)
