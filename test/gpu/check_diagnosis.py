# SPDX-License-Identifier: MIT
"""check_diagnosis.py - the diagnosis suite (examples/diagnose/suite.json)
on a real GPU.

Each workload is built to have one known bottleneck.  It runs with the
variables its "env" names (CUDA_LAUNCH_BLOCKING=1: a setting left in the
environment), its twin with its own.  It is traced in the library's
default settings (GPU windows placed on the program's steady
steps; GT_DIAG_GPU=all: every kernel of the whole run; GT_DIAG_GPU=clock:
one window by the clock, scaled into the steps) and analyzed; in the
default settings each run must have a window placed on its steps, holding
whole steps, with 99% or more of the launches in it joined to GPU records.
The top class of the verdict must be the expected one.  A workload with a fixed
twin is compared with it: the twin's measured gain (time per step, or per
sample when the twin changes the batch; both traced alike) must fall
within 0.10 of the expected class's predicted point (the replay's).

A workload that prints `host_fn=... host_share=... host_of=...` (the
share of one known function in the CPU time of the thread that ran it, or
of the DataLoader workers) is checked against the same quantity in the
report: the host samples' profile of that thread (or of the workers) over
the steady steps, when the report has one (else a SKIP line): the
function named, its share within 0.10 (diaglib.py).

Which workloads: GT_DIAG_SET=core (the suite's first workloads; also
"old"), frameworks (those written with transformers, timm, torchvision,
Lightning and Flax; also "new") or all (the default); GT_DIAG_ONLY=a,b
keeps only those names of the set.  Each set fits in one command of 10
minutes (parts.sh diagnosis, diagnosis-frameworks).

Prints one verdict per workload and per twin, then a table (also written
as markdown to OUT/diagnose/table.md), and keeps each report (text and
JSON), dumps (its forked children's too) and truth lines under
OUT/diagnose/.  GT_DIAG_REPLAY=that folder checks those runs again with
this checkout's analyzer, on a machine without a GPU:

    GT_DIAG_REPLAY=/tmp/run/diagnose GT_CHECKS=check_diagnosis \
        python3 test/gpu/check.py /tmp/replayed
"""
import glob
import json
import os
import re
import shutil
import subprocess

import diaglib
from gpulib import ANALYZE, LIB, OUT, WORK, truth, verdict
from gpulib import run as sh

SUITE = "examples/diagnose"
NEAR = 0.10
# Default: no GPUTRACE_* setting at all, the workloads' own step counts.
# GT_DIAG_GPU=all: GPU records for the whole run.  GT_DIAG_GPU=clock: one
# window of 1 s by the clock, 2.5 s after the program's first GPU work, in
# steps run for 4.5 s (DIAG_UNTIL).
MODE = os.environ.get("GT_DIAG_GPU", "default")
JOINED = 0.99
# GT_DIAG_REPLAY=DIR: no GPU, nothing run: the runs an earlier check kept
# in DIR (its OUT/diagnose) are analyzed again, by this checkout's analyzer.
REPLAY = os.environ.get("GT_DIAG_REPLAY")


def gpu_env(cmd):
    if MODE == "all":
        return {"GPUTRACE_GPU": "all", "PYTHONUNBUFFERED": "1"}
    if MODE == "clock":
        return {"GPUTRACE_GPU_PLACE": "clock", "GPUTRACE_GPU_WARMUP_MS": "2500",
                "GPUTRACE_GPU_WINDOW_MS": "1000", "GPUTRACE_GPU_PERIOD_MS": "600000",
                "DIAG_UNTIL": "4.5", "PYTHONUNBUFFERED": "1"}
    return {"PYTHONUNBUFFERED": "1"}


def build_cuda():
    out = os.path.join(WORK, "diagnose")
    os.makedirs(out, exist_ok=True)
    for name in ("pageable", "sync_per_kernel", "launch_bound"):
        subprocess.run(["nvcc", "-O2", "-arch=sm_90", "-o", os.path.join(out, name),
                        os.path.join(SUITE, "cuda", name + ".cu")], check=True)
    return out


def command(cmd, cuda):
    return [os.path.join(SUITE, c) if c.endswith(".py") else c.replace("{cuda}", cuda)
            for c in cmd]


def keep(name, dump, others, out):
    """The report, the analyzed dump (name.bin), the run's other dumps
    (its forked children's: name-PID.bin) and its truth lines
    (name.stdout), for reading or replaying (GT_DIAG_REPLAY) later."""
    d = os.path.join(OUT, "diagnose")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".txt"), "w") as f:
        f.write(sh([ANALYZE, dump] + others)[1])
    if REPLAY:
        return
    shutil.copy(dump, os.path.join(d, name + ".bin"))
    for o in others:
        pid = re.search(r"-(\d+)\.bin$", o)
        shutil.copy(o, os.path.join(d, f"{name}-{pid.group(1) if pid else 'child'}.bin"))
    with open(os.path.join(d, name + ".stdout"), "w") as f:
        f.write("".join(line + "\n" for line in out.splitlines() if line.startswith("truth")))


def cost_text(e):
    """One of tracing_cost's comparisons: "+4.1% (+3.0% to +5.2%)", or
    "not measurable (+-9.0%: +4.1%, -3.0% to +11.2%)"."""
    fig = (f"{100 * e.get('median', 0):+.1f}%, {100 * e.get('lo', 0):+.1f}% to "
           f"{100 * e.get('hi', 0):+.1f}%")
    if e.get("measurable"):
        return fig.replace(", ", " (", 1) + ")"
    return f"not measurable (+-{100 * e.get('spread', -0.01):.1f}%: {fig})"


def check_window(name, j):
    """Default settings: GPU timing for the steps (a window holding whole
    steps the diagnosis timed: placed on them, or by the clock or at the
    start where it still holds them), its launches joined (or a loop of
    CUDA graphs' runs, each recorded whole); and the run's own measure of
    its cost."""
    wins = j.get("gpu_windows") or []
    cost = j.get("tracing_cost") or {}
    g = j.get("gpu") or {}
    inside, joined = g.get("launches_in_windows", 0), g.get("launches_joined", 0)
    # a step replayed as a CUDA graph launches no kernel itself
    share = joined / inside if inside else (1 if j.get("graphs") else 0)
    # graph runs recorded whole, every one joined: a loop of CUDA graphs is
    # timed by them (the launches made while its graph was captured never run)
    recs = g.get("records") or {}
    runs = sum(x.get("calls", 0) for x in j.get("graphs") or [])
    if runs and recs.get("graphs", 0) >= runs and not recs.get("unjoined") and \
            not recs.get("orphans"):
        share = 1
    # GPU timing for the steps: those the diagnosis timed, or the cost
    # line's steps inside windows; not the latter where a window's GPU
    # timing ended long before the run and CUPTI stayed subscribed (off_ns
    # 0): its span runs on to the end
    wall = j.get("wall_ns") or 0
    lingers = any(not w.get("off_ns") and w.get("end_ns") and
                  w["end_ns"] < 0.95 * wall for w in wins)
    timed = (j.get("diagnosis") or {}).get("timed_steps", 0)
    if not lingers:
        timed = max(timed, cost.get("steps_inside", 0))
    ok = bool(wins) and timed >= 3 and share >= JOINED
    detail = (f"windows {[w.get('reason') for w in wins]}, steps inside "
              f"{cost.get('steps_inside', 0)} of {cost.get('steps', 0)} (timed by the "
              f"diagnosis: {timed}), launches in "
              f"windows {inside}, joined {100 * share:.2f}%")
    if cost.get("measured"):
        detail += (f"; cost in the run: {cost_text(cost.get('inside') or {})} per step inside, "
                   f"covered {100 * cost.get('covered', 0):.1f}% of {cost.get('steps', 0)} "
                   f"{cost.get('steps_from', '')} steps")
        if "overall" in cost:
            detail += f", {100 * cost['overall']['median']:+.2f}% overall"
        if "after_detach" in cost:
            detail += f", after a window {cost_text(cost['after_detach'])}"
    else:
        detail += f"; cost not measured ({cost.get('why_not', 'no steps')})"
    verdict(f"diag-window-{name}", ok, detail)


STEP_NEAR = 0.10
PACE_OVER = 1.10        # the GPU's pace this much longer: the host ran ahead


def check_step(name, t, j):
    """The report's step is the program's own (its ms per step, within
    10%): the whole iteration, at the pace the program kept."""
    st = j.get("steps") or {}
    ns = st.get("step_ns") or st.get("mean_ns") or 0
    ms = ns / 1e6
    off = ms / t["ms_per_step"] - 1 if t.get("ms_per_step") else float("inf")
    verdict(f"diag-step-{name}", abs(off) <= STEP_NEAR,
            f"report {st.get('count', 0)} steps of {ms:.4g} ms ({st.get('step_source', '?')}), "
            f"program {t.get('ms_per_step', 0):.4g} ms over {t.get('steps', '?')} steps: "
            f"{100 * off:+.1f}%")


def recorded(name):
    """A run kept by an earlier check (GT_DIAG_REPLAY=its OUT/diagnose):
    its truth lines, and its dumps, the analyzed one first."""
    short = name[len("diag-"):]
    try:
        with open(os.path.join(REPLAY, short + ".stdout")) as f:
            out = f.read()
    except OSError as e:
        raise RuntimeError(f"{name}: not kept in {REPLAY} ({e.strerror})") from e
    main = os.path.join(REPLAY, short + ".bin")
    others = sorted(p for p in glob.glob(os.path.join(REPLAY, short + "-*.bin"))
                    if re.fullmatch(re.escape(short) + r"-\d+\.bin", os.path.basename(p)))
    return out, main, others


def cuda_events(dump):
    """How many CUDA calls a child's dump holds (0: a DataLoader worker)."""
    rc, js, _ = sh([ANALYZE, "--json", dump])
    return json.loads(js).get("events", 0) if rc == 0 else -1


def trace(cmd, name, extra_env=None):
    """Like gpulib.trace, but when several processes wrote dumps (taskset
    execs python) the one with the most events is analyzed, and a program
    that fails after writing its dump and its timing is failed apart (the
    tracer must never hurt it) but still diagnosed.  With GT_DIAG_REPLAY,
    nothing runs: the runs kept there are analyzed again."""
    if REPLAY:
        out, dump, others = recorded(name)
    else:
        env = dict(gpu_env(cmd), LD_PRELOAD=LIB,
                   GPUTRACE_OUTPUT=os.path.join(WORK, name + "-%p.bin"), **(extra_env or {}))
        rc, out, err = sh(cmd, env)
        dumps = re.findall(r"gputrace: wrote (\S+) \((\d+) events", err)
        if rc != 0:
            verdict(f"{name}-exit", False, f"exit status {rc} under the tracer: {err[-300:]}")
        if not dumps or "ms_per_step" not in truth(out):
            raise RuntimeError(f"{name}: rc={rc} stderr={err[-2000:]}")
        dump = max(dumps, key=lambda d: int(d[1]))[0]
        # forked children (DataLoader workers) end with _exit: no "wrote" line
        others = [p for p in glob.glob(os.path.join(WORK, name + "-*.bin")) if p != dump]
    # its children's dumps with it: what its DataLoader workers ran (a child
    # that made CUDA calls, such as shared-gpu's other process, is a process
    # of its own: given with it, the analyzer would compare them as ranks)
    others = [o for o in others if cuda_events(o) == 0]
    rc, js, aerr = sh([ANALYZE, "--json", dump] + others)
    if rc != 0:
        raise RuntimeError(f"{name}: analyzer rc={rc} {aerr}")
    js = json.loads(js)
    if not js.get("diagnosis"):
        raise RuntimeError(f"{name}: the report has no diagnosis (a ranks report?)")
    return dict(truth(out), **diaglib.host_truth(out)), js, dump, others, out


def traced(w, cuda, cache):
    """A workload or twin (its name, cmd and env), traced once."""
    name = w["name"]
    if name not in cache:
        t, j, dump, others, out = trace(command(w["cmd"], cuda), "diag-" + name, w.get("env"))
        if MODE == "default":
            check_window(name, j)
        check_step(name, t, j)
        keep(name, dump, others, out)
        with open(os.path.join(OUT, "diagnose", name + ".json"), "w") as f:
            json.dump({k: j.get(k) for k in ("steps", "idle", "verdict", "diagnosis",
                                             "tracing_cost", "gpu_windows")}, f, indent=1)
        cache[name] = (t, j)
    return cache[name]


def check_host(name, t, j):
    """The function the workload burns its host time in, named by the
    report with its share (or SKIP where the report has no breakdown)."""
    if "host_fn" not in t:
        return
    status, detail = diaglib.host_check(t, j)
    if status == "SKIP":
        print(f"SKIP diag-host-{name}: {detail}", flush=True)
    else:
        verdict(f"diag-host-{name}", status == "PASS", detail)


def top(j):
    v = j.get("verdict") or [{}]
    return v[0].get("class", "none"), v[0].get("score", 0)


def step_ms(t, j):
    """Time per step where the GPU was timed (the dump's steps inside its
    window: CUPTI's cost on launches applies there, to the prediction as
    to this), else the program's own figure over all its steps.  A loop
    that ran ahead of the GPU in the window (its steps there shorter than
    the step at the GPU's pace the report gives) is timed by the program:
    its host steps are not its work's.  So is one whose replay took its
    host's times from like steps outside the windows (whatif_replay's
    host_times_from): CUPTI's cost is not in its prediction."""
    d = j.get("diagnosis", {})
    paced = (j.get("steps") or {}).get("step_ns") or 0
    lent = (j.get("whatif_replay") or {}).get("host_times_from") == "outside_windows"
    if (not lent and d.get("timed_steps", 0) >= 3 and d.get("timed_step_ns") and
            paced <= PACE_OVER * d["timed_step_ns"]):
        return d["timed_step_ns"] / 1e6, "timed"
    return t["ms_per_step"], "program"


def same_step(t, j):
    """Whether the dump's timed step is the program's step (within 1.5x
    either way) and not a part of it or several: a step the analyzer cut
    otherwise than the program counts is not compared."""
    ms, how = step_ms(t, j)
    return how == "program" or 2 / 3 <= ms / t["ms_per_step"] <= 1.5


def measured_gain(w, t, j, tt, tj):
    (a, how), (b, how2) = step_ms(t, j), step_ms(tt, tj)
    if how != how2 or not (same_step(t, j) and same_step(tt, tj)):
        a, b, how = t["ms_per_step"], tt["ms_per_step"], "program"  # like with like
    if w.get("gain") == "per_sample":
        a, b = a / t["batch"], b / tt["batch"]
    return 1 - b / a, a, b, how


def check_twin(w, j, t, cuda, cache, row):
    tw = w["twin"]
    try:
        tt, tj = traced(tw, cuda, cache)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        verdict(f"diag-gain-{w['name']}", False, f"twin {tw['name']}: {str(e)[:300]}")
        return
    entry = next((v for v in j.get("verdict", []) if v["class"] == w["expect"]), None)
    gain, a, b, how = measured_gain(w, t, j, tt, tj)
    lo, hi = (entry["est_gain_low"], entry["est_gain_high"]) if entry else (0, 0)
    point = entry.get("est_gain", (lo + hi) / 2) if entry else 0
    ok = entry is not None and abs(gain - point) <= NEAR
    row.update(twin=tw["name"], twin_class=top(tj)[0],
               predicted=f"{point:.2f} ({lo:.2f}-{hi:.2f})", measured=f"{gain:.2f}")
    verdict(f"diag-gain-{w['name']}", ok,
            f"{w['name']} {t['ms_per_step']:.3f} ms/step (batch {t.get('batch')}) -> "
            f"{tw['name']} {tt['ms_per_step']:.3f} ms/step (batch {tt.get('batch')}); "
            f"compared ({how} steps, {w.get('gain', 'step')}): {a:.4g} -> {b:.4g}: "
            f"measured gain {gain:.2f}, predicted {point:.2f} ({lo:.2f} to {hi:.2f}; "
            f"within {NEAR:.2f} of the point)")


def check_one(w, cuda, cache, rows):
    row = {"name": w["name"], "expect": w["expect"], "got": "-", "score": "-"}
    rows.append(row)
    try:
        t, j = traced(w, cuda, cache)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        verdict(f"diag-{w['name']}", False, str(e)[:500])
        return
    cls, score = top(j)
    idle = ", ".join(f"{i['cause']} {100 * i['share']:.0f}%" for i in j.get("idle", [])[:4])
    row.update(got=cls, score=f"{score:.2f}")
    verdict(f"diag-{w['name']}", cls == w["expect"],
            f"expected {w['expect']}, verdict {cls} ({score:.2f}); busy "
            f"{100 * j['diagnosis'].get('busy_share', 0):.0f}%; idle: {idle}; "
            f"steps {j['steps']['count']} of {j['steps']['mean_ns'] / 1e6:.3f} ms")
    check_host(w["name"], t, j)
    if "twin" in w:
        check_twin(w, j, t, cuda, cache, row)


def write_table(rows):
    head = ("workload", "expected", "verdict", "score", "twin", "predicted gain",
            "measured gain")
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(k, "")) for k in (
            "name", "expect", "got", "score", "twin", "predicted", "measured")) + " |")
    text = "\n".join(lines)
    print("\n" + text)
    os.makedirs(os.path.join(OUT, "diagnose"), exist_ok=True)
    with open(os.path.join(OUT, "diagnose", "table.md"), "w") as f:
        f.write(text + "\n")


def run_suite():
    with open(os.path.join(SUITE, "suite.json")) as f:
        suite = json.load(f)["workloads"]
    chosen = diaglib.select(suite, os.environ.get("GT_DIAG_SET", "all"),
                            os.environ.get("GT_DIAG_ONLY"))    # e.g. "item-sync,big-matmul"
    cuda = build_cuda() if diaglib.needs_cuda(chosen) and not REPLAY else ""
    cache, rows = {}, []
    for w in chosen:
        check_one(w, cuda, cache, rows)
    write_table(rows)


def run():
    try:
        run_suite()
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        verdict("diag-suite", False, f"{type(e).__name__}: {str(e)[:500]}")
