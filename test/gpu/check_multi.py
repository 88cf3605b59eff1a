# SPDX-License-Identifier: MIT
"""check_multi.py - the multi-GPU diagnosis suite
(examples/diagnose/ddp/suite.json) on 2 to 8 GPUs of one host.

Each workload runs one process per GPU (up to 8) as a user would write it:

    gputrace record -o 'DIR/run-%r.bin' -- torchrun --standalone \\
        --nproc-per-node N SCRIPT ARGS

with NVLink multicast off in its environment (multilib.NO_MULTICAST), and
its folder of rank dumps is analyzed at once (gputrace-analyze --json DIR):

  multi-<name>        the job exited 0 with a truth line per rank, a dump
                      per rank, and the ranks report's verdict names the
                      expected straggler rank (or none), class and cause
  multi-gain-<name>   the fixed twin, run alike: its measured gain on the
                      job's step (the slowest rank's ms per step) falls
                      within the verdict's predicted gain, or near it
                      (0.10)

With fewer than 2 GPUs it says so in one line (SKIP) and checks nothing.
Prints a table (also OUT/multi/table.md) and keeps each job's ranks report
(text and JSON) under OUT/multi/.
"""
import json
import os
import subprocess

import gpulib as g
import multilib as ml

SUITE = "examples/diagnose/ddp"
GPUTRACE = os.path.join(g.ROOT, "build", "gputrace")
JOB_TIMEOUT = 420


def gpu_count():
    rc, out, _ = g.run(["python3", "-c", "import torch; print(torch.cuda.device_count())"],
                       timeout=120)
    return int(out.strip() or 0) if rc == 0 else 0


def keep(name, text, j):
    d = os.path.join(g.OUT, "multi")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".txt"), "w") as f:
        f.write(text)
    with open(os.path.join(d, name + ".json"), "w") as f:
        json.dump(j, f, indent=1)


def analyze(folder):
    rc, js, err = g.run([g.ANALYZE, "--json", folder], timeout=600)
    if rc != 0:
        raise RuntimeError(f"gputrace-analyze --json {folder}: rc={rc} {err[-800:]}")
    return json.loads(js), g.run([g.ANALYZE, folder], timeout=600)[1]


def job(w, world):
    """Run a workload or twin traced: (truths, the ranks report's JSON)."""
    folder = os.path.join(g.WORK, "multi", w["name"])
    os.makedirs(folder, exist_ok=True)
    rc, out, err = g.run(ml.command(GPUTRACE, folder, world, SUITE, w["cmd"]),
                         ml.environment(w.get("env")), timeout=JOB_TIMEOUT)
    t = ml.truths(out)
    dumps = [f for f in os.listdir(folder) if f.endswith(".bin")]
    bad = ml.truth_problems(t, world)
    if rc != 0:
        bad.insert(0, f"exit status {rc}: {err[-600:]}")
    if len(dumps) < world:
        bad.append(f"{len(dumps)} dumps for {world} ranks")
    if bad:
        raise RuntimeError("; ".join(bad))
    j, text = analyze(folder)
    keep(w["name"], text, j)
    return t, j


def traced(w, world, cache):
    if w["name"] not in cache:
        cache[w["name"]] = job(w, world)
    return cache[w["name"]]


def check_twin(w, world, t, j, cache, row):
    tw = w["twin"]
    try:
        tt, _ = traced(tw, world, cache)
    except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as e:
        g.verdict(f"multi-gain-{w['name']}", False, f"twin {tw['name']}: {str(e)[:400]}")
        return
    v = j.get("verdict") or {}
    (a, ra), (b, rb) = ml.job_step_ms(t), ml.job_step_ms(tt)
    gain = ml.measured_gain(a, b)
    lo, hi = v.get("est_gain_low"), v.get("est_gain_high")
    row.update(twin=tw["name"], predicted="-" if lo is None else f"{lo:.2f}-{hi:.2f}",
               measured=f"{gain:.2f}")
    g.verdict(f"multi-gain-{w['name']}", ml.gain_ok(gain, lo, hi),
              f"job step {a:.3f} ms (rank {ra}) -> {tw['name']} {b:.3f} ms (rank {rb}): "
              f"measured gain {gain:.2f}, predicted {lo} to {hi} (within {ml.NEAR})")


def check_one(w, world, cache, rows):
    row = {"name": w["name"], "ranks": world, "expect": w["expect"], "got": "-"}
    rows.append(row)
    try:
        t, j = traced(w, world, cache)
    except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as e:
        g.verdict(f"multi-{w['name']}", False, str(e)[:800])
        return
    v = j.get("verdict") or {}
    bad = ml.verdict_problems(w["expect"], v)
    ms, slow = ml.job_step_ms(t)
    row["got"] = {k: v.get(k) for k in ("rank", "class", "cause")}
    g.verdict(f"multi-{w['name']}", not bad,
              ("; ".join(bad) + " | " if bad else "") +
              f"job step {ms:.3f} ms (rank {slow}); {j.get('collectives_matched')} "
              f"collectives matched; verdict: {v.get('text', '')[:500]}")
    g.table.append((f"multi-{w['name']}", 0, sum(r["events"] for r in j["ranks"]),
                    sum(r["dropped"] for r in j["ranks"])))
    if "twin" in w:
        check_twin(w, world, t, j, cache, row)


def write_table(rows):
    head = ("workload", "ranks", "expected", "verdict", "twin", "predicted gain",
            "measured gain")
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(k, "")) for k in (
            "name", "ranks", "expect", "got", "twin", "predicted", "measured")) + " |")
    text = "\n".join(lines)
    print("\n" + text)
    os.makedirs(os.path.join(g.OUT, "multi"), exist_ok=True)
    with open(os.path.join(g.OUT, "multi", "table.md"), "w") as f:
        f.write(text + "\n")


def run():
    """The entry point check.py calls."""
    gpus = gpu_count()
    skip = ml.skip_line(gpus)
    if skip:
        print(skip, flush=True)
        return
    world = ml.world_size(gpus)
    with open(os.path.join(SUITE, "suite.json")) as f:
        suite = json.load(f)["workloads"]
    only = os.environ.get("GT_MULTI_ONLY")      # e.g. "ddp-straggler,ddp-healthy"
    cache, rows = {}, []
    for w in suite:
        if (not only or w["name"] in only.split(",")) and world >= w.get("min_ranks", 2):
            check_one(w, world, cache, rows)
    write_table(rows)
