# SPDX-License-Identifier: MIT
"""check_overhead.py - the overhead, measured side by side in one run,
on a machine with an NVIDIA GPU:

  launch      added host time per intercepted launch: examples/cuda/
              launch_loop.cu (empty kernels, the launch calls timed), runs
              untraced and traced host-only, interleaved, 7 of each,
              medians.  Goal: under 60 ns added, rate >= 97%.
  torch-*     ms per step of the launch-bound loop of examples/pytorch/
              train_mlp.py and of a compute-bound one (test/bench/
              bench_torch.py): untraced, traced host-only (GPUTRACE_GPU=off),
              the default GPU windows (scaled: see DEFAULT_SCALED), every
              kernel (GPUTRACE_GPU=all), torch.profiler, and Nsight
              Systems when nsys is installed; 7 rounds interleaved, the
              median of the per-round ratios to untraced and their spread;
              and what the default runs measured of their own windows.
              Goals: host-only <= 1.01x, default <= 1.03x, all <= 1.30x.
  residue     whether CUPTI leaves a cost once detached: one run with
              the scaled default windows, the steps just after each window
              against those just before it, the median over the windows.
  dump-bytes  bytes of dump per event, from those runs.
  analyzer    events per second and peak memory of gputrace-analyze on
              large synthetic dumps (test/bench/make_big_dump.c; CPU only).
  clock       clock_gettime's cost and the clock source: the hot path reads
              the clock twice per call, so a clock that is a system call
              (no vDSO, e.g. some VMs) costs that much more.

Writes the table for docs/validation.md to OUT/overhead.md.  Run by check.py
(GT_CHECKS=check_overhead bash test/gpu/check.sh runs it alone), or on its
own after make: bash test/bench/overhead.sh.  GT_BENCH_ROUNDS (default 3)
sets the rounds of the PyTorch runs (GT_BENCH_LAUNCH_ROUNDS, 7, of the
launch loop), GT_BENCH_QUICK=1 makes everything
shorter (a smoke test, not a measurement), GT_BENCH_SKIP=analyzer-speed
leaves a part out (the analyzer's speed needs no GPU), GT_BENCH_MODES=
default,default-no-host-samples keeps those modes of the PyTorch loops
(and the untraced one): the default settings against the same without
the host sampler, each round.
"""
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402
from gpulib import ANALYZE, CUDA, LIB, OUT, ROOT, WORK, table, truth, verdict  # noqa: E402,F401

QUICK = os.environ.get("GT_BENCH_QUICK") == "1"
ROUNDS = int(os.environ.get("GT_BENCH_ROUNDS", "1" if QUICK else "7"))
LAUNCH_ROUNDS = int(os.environ.get("GT_BENCH_LAUNCH_ROUNDS", "2" if QUICK else "7"))
# (timed steps, warm-up steps): about 7 s timed, so that the scaled GPU
# windows (WINDOWS_SCALED) open two or three times; under a profiler fewer.
# (timed steps, warm-up steps): few warm-up steps, so that the default's
# first window (as soon as the steps are steady, about the tenth) falls in
# the timed part, as every window of a long run would.
TORCH_STEPS = {"launch": (60, 5) if QUICK else (800, 5),
               "compute": (10, 3) if QUICK else (200, 5)}
PROFILED_STEPS = {"launch": 60 if QUICK else 300, "compute": 10 if QUICK else 60}
BIG_EVENTS = (2_000_000, 4_000_000) if QUICK else (20_000_000, 40_000_000)
SAMPLER_GOAL = 0.005    # the host sampler's share of the sampled CPU time
md = []


def sh(cmd, env=None, timeout=600):
    """rc, stdout, stderr of cmd; env adds to a copy of ours, less LD_PRELOAD."""
    e = {k: v for k, v in os.environ.items()
         if k != "LD_PRELOAD" and not k.startswith("GPUTRACE")}
    e.update(env or {})
    p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def traced(name, extra=None):
    env = {"LD_PRELOAD": LIB, "GPUTRACE_OUTPUT": os.path.join(WORK, name + "-%p.bin")}
    env.update(extra or {})
    return env


def wrote(err):
    """(path, events, dropped) from the tracer's line on stderr, or None."""
    m = re.search(r"gputrace: wrote (\S+) \((\d+) events, (\d+) dropped\)", err)
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


def measure(cmd, env, key, what):
    rc, out, err = sh(cmd, env)
    t = truth(out)
    if rc != 0 or key not in t:
        raise RuntimeError(f"{what}: rc={rc} {err[-1500:]}")
    return t, wrote(err)


def machine():
    def first(cmd):
        try:
            return sh(cmd, timeout=60)[1].strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"
    try:
        import torch
        tv = torch.__version__
    except ImportError:
        tv = "none"
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    try:
        nvcc = sh([os.path.join(CUDA, "bin", "nvcc"), "--version"], timeout=60)[1]
    except OSError:
        nvcc = ""
    m = re.search(r"release ([\d.]+)", nvcc)
    return {
        "date": datetime.date.today().isoformat(),
        "gpu": first(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
        "cuda": m.group(1) if m else "?", "torch": tv, "cpu": cpu,
        "clocksource": clocksource(),
    }


def clocksource():
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            return f.read().strip()
    except OSError:
        return "?"


def bench_launch():
    exe = os.path.join(WORK, "launch_loop")
    subprocess.run(["nvcc", "-O2", "-arch=sm_90", "-o", exe, "examples/cuda/launch_loop.cu"],
                   check=True)
    reps = ["--reps", "3", "--batches", "40"] if QUICK else ["--reps", "7"]
    # (the default, GPU windows, would time the same: the loop ends before
    # the first window opens, 5 s after its first launch)
    modes = {"untraced": None, "host-only": {"GPUTRACE_GPU": "off"}}
    ns = {m: [] for m in modes}
    clock, lines = [], {}
    for r in range(LAUNCH_ROUNDS):
        order = list(modes)[r % len(modes):] + list(modes)[:r % len(modes)]
        for m in order:
            env = None if modes[m] is None else traced(f"launch-{m}", modes[m])
            t, w = measure([exe] + reps, env, "ns_per_launch", f"launch_loop {m}")
            ns[m].append(t["ns_per_launch"])
            print(f"  launch round {r + 1}: {m} {t['ns_per_launch']:.1f} ns", flush=True)
            clock.append(t["clock_ns"])
            if w:
                lines[m] = (w, t["launches"])
    med = {m: statistics.median(v) for m, v in ns.items()}
    for m in ("host-only",):
        added = med[m] - med["untraced"]
        rate = med["untraced"] / med[m]
        detail = (f"{med['untraced']:.0f} ns per launch untraced, {med[m]:.0f} traced: "
                  f"{added:+.1f} ns, rate {rate * 100:.1f}% (runs {ns['untraced']} / {ns[m]})")
        verdict(f"overhead-launch-{m}", added < 60 and rate >= 0.97, detail)
        md.append(f"| empty-kernel launch, {m} | {med['untraced']:.0f} ns | {med[m]:.0f} ns | "
                  f"{added:+.1f} ns, rate {rate * 100:.1f}% | < 60 ns, >= 97% |")
        table.append((f"launch-{m}-ns-added", round(added, 1), "", ""))
    for m, ((path, events, dropped), launches) in lines.items():
        ok = dropped == 0 and events >= launches
        verdict(f"overhead-launch-{m}-dump", ok,
                f"{events} events, {dropped} dropped for {launches} launches, "
                f"{os.path.getsize(path) / max(events, 1):.1f} bytes per event")
        md.append(f"| dump, launch loop, {m} | | {events} events | "
                  f"{os.path.getsize(path) / max(events, 1):.1f} bytes/event | |")
    c = statistics.median(clock)
    verdict("clock", True, f"clock_gettime {c:.1f} ns, clocksource {clocksource()}" +
            ("  (looks like a system call: the hot path pays it twice per call)" if c > 100 else ""))
    md.append(f"| clock_gettime (clocksource {clocksource()}) | | {c:.1f} ns | | |")
    table.append(("clock-gettime-ns", round(c, 1), "", ""))


# The default GPU windows cover 10 whole steps and 500 ms or more once the
# steps are steady, then again every 30 s: in a run of hours, 1/60 of the
# time.  The timed part of a launch-bound run here is about 4 s: one whole
# default window would be 1/8 of it and weigh the windows eight times what
# training pays; so "default" here is the default at 1/7.7 of its scale
# (10 steps and 65 ms or more every 3.9 s: one window in the timed part,
# about 1/60 of it), said in the table.  Switching CUPTI on and off (some
# 20 ms a window) then weighs 7.7 times what it does in training.  "default-unscaled" (no
# setting at all, one 500 ms window in the run) is run too when asked
# (GT_BENCH_UNSCALED=1).
DEFAULT_SCALED = {"GPUTRACE_GPU_WINDOW_MS": "65", "GPUTRACE_GPU_PERIOD_MS": "3900"}
SCALE_NOTE = ("default windows at 1/7.7 scale (10 steps and 65 ms or more every 3.9 s, "
              "one window in each run's timed part)")


def torch_modes():
    """The PyTorch loops' modes; GT_BENCH_MODES=a,b,... keeps those only
    (untraced always: the ratios are to it)."""
    modes = [("untraced", None, []), ("host-only", {"GPUTRACE_GPU": "off"}, []),
             ("default", DEFAULT_SCALED, []),
             ("default-no-host-samples", dict(DEFAULT_SCALED, GPUTRACE_HOST_HZ="0"), []),
             ("all", {"GPUTRACE_GPU": "all"}, []),
             ("torch.profiler", None, ["--profiler"])]
    if os.environ.get("GT_BENCH_UNSCALED") == "1":
        modes.insert(3, ("default-unscaled", {}, []))
    if shutil.which("nsys"):
        modes.append(("nsys", None, ["nsys"]))
    keep = os.environ.get("GT_BENCH_MODES")
    if keep:
        modes = [m for m in modes if m[0] == "untraced" or m[0] in keep.split(",")]
    return modes


def torch_cmd(kind, extra):
    steps, warm = TORCH_STEPS[kind]
    if extra:       # the profilers' traces grow with the steps: fewer
        steps = PROFILED_STEPS[kind]
    cmd = ["python3", "test/bench/bench_torch.py", kind, "--steps", str(steps),
           "--warmup", str(warm)]
    if extra == ["nsys"]:
        return ["nsys", "profile", "--trace=cuda,nvtx", "--sample=none",
                "--cpuctxsw=none", "--force-overwrite=true",
                "-o", os.path.join(WORK, f"nsys-{kind}")] + cmd
    return cmd + extra


GOALS = {"host-only": 1.01, "default": 1.03, "all": 1.30}


def spread(v):
    return f"{min(v):.3f}-{max(v):.3f}" if v else "-"


def in_run_cost(path):
    """The run's own tracing-cost figures (its dump's tracing_cost, with
    the host sampler's handler time under "host_sampler")."""
    j = json.loads(sh([ANALYZE, "--json", path])[1] or "{}")
    cost = dict(j.get("tracing_cost") or {})
    if j.get("host_sampler_cost"):
        cost["host_sampler"] = j["host_sampler_cost"]
    return cost, j.get("gpu_windows") or []


def torch_rounds(kind, modes):
    """ms per step of every mode in every round, the modes' order rotated
    round by round; the default runs' own cost figures."""
    ms = {m[0]: [] for m in modes}
    dumps, costs = {}, []
    for r in range(ROUNDS):
        for name, env, extra in modes[r % len(modes):] + modes[:r % len(modes)]:
            e = None if env is None else traced(f"torch-{kind}-{name}-{r}", env)
            t, w = measure(torch_cmd(kind, extra), e, "ms_per_step", f"torch {kind} {name}")
            ms[name].append(t["ms_per_step"])
            print(f"  {kind} round {r + 1}: {name} {t['ms_per_step']:.3f} ms/step", flush=True)
            if w:
                dumps[name] = w
            if w and name == "default":
                costs.append(in_run_cost(w[0])[0])
    return ms, dumps, costs


def report_mode(kind, name, ms, dumps):
    """Verdict and table row of one mode: the median of its per-round
    ratios to the untraced run of the same round, and their spread."""
    ratios = [a / b for a, b in zip(ms[name], ms["untraced"])]
    ratio, goal = statistics.median(ratios), GOALS.get(name)
    med = statistics.median(ms[name])
    detail = (f"{med:.3f} ms/step; per-round ratios {['%.3f' % x for x in ratios]}: "
              f"median {ratio:.3f}x, spread {spread(ratios)}")
    if name in dumps:
        detail += f"; {dumps[name][1]} events, {dumps[name][2]} dropped"
    if name == "default":
        detail += f" ({SCALE_NOTE})"
    if goal:
        verdict(f"overhead-torch-{kind}-{name}", ratio <= goal, detail + f"; goal <= {goal}x")
    elif name != "untraced":
        verdict(f"overhead-torch-{kind}-{name}", True, detail + " (for comparison)")
    if name != "untraced":
        md.append(f"| {kind}-bound PyTorch loop, {name} | {statistics.median(ms['untraced']):.3f} ms "
                  f"| {med:.3f} ms | {ratio:.3f}x ({spread(ratios)}) | "
                  f"{'<= %.2fx' % goal if goal else ''} |")
    table.append((f"torch-{kind}-{name}", round(ratio, 3), spread(ratios), ""))


def report_sampler(kind, costs):
    """The host sampler's own time, measured in its handler by every
    default run: the median mean per sample and share of the sampled CPU
    time, against the design target (the kernel's delivery of the signal
    is not in it)."""
    got = [c["host_sampler"] for c in costs if c.get("host_sampler")]
    if not got:
        verdict(f"sampler-cost-{kind}", False, "no default run measured its host sampler")
        return
    mean = statistics.median(c["handler_mean_ns"] for c in got)
    share = statistics.median(c["share_of_sampled_cpu"] for c in got)
    samples = statistics.median(c["samples"] for c in got)
    verdict(f"sampler-cost-{kind}", share <= SAMPLER_GOAL,
            f"{len(got)} runs: {samples:.0f} samples each, {mean / 1000:.2f} us in the handler "
            f"per sample, {100 * share:.3f}% of the sampled threads' CPU time (medians; "
            f"the signal's delivery not in it); goal <= {100 * SAMPLER_GOAL:.1f}%")
    md.append(f"| {kind}-bound loop, default: the host sampler's handler | | "
              f"{mean / 1000:.2f} us per sample ({samples:.0f} samples a run) | "
              f"{100 * share:.3f}% of the sampled CPU time | <= {100 * SAMPLER_GOAL:.1f}% |")


def report_costs(kind, costs):
    """What the default runs measured of their own windows: the medians
    of their figures, and how many runs could tell one."""
    report_sampler(kind, costs)
    got = [c for c in costs if c.get("measured")]
    if not got:
        verdict(f"in-run-cost-{kind}", False, f"no default run measured its cost: {costs[:1]}")
        return
    inside = statistics.median(c["inside"]["median"] for c in got)
    told = sum(1 for c in got if c["inside"].get("measurable"))
    overall = [c["overall"]["median"] for c in got if "overall" in c]
    covered = statistics.median(c["covered"] for c in got)
    after = [c["after_detach"]["median"] for c in got if "after_detach" in c]
    tail = (f"{100 * statistics.median(overall):+.2f}% overall" if overall
            else "overall not measurable")
    detail = (f"{len(got)} runs ({told} measurable): {100 * inside:+.1f}% per step inside "
              f"windows, covering {100 * covered:.1f}% of the steps, {tail} (medians)")
    if after:
        detail += f"; steps after a window against before: {100 * statistics.median(after):+.1f}%"
    verdict(f"in-run-cost-{kind}", True, detail)
    md.append(f"| {kind}-bound loop, default: the runs' own measure | | "
              f"{100 * inside:+.1f}% per step in windows ({told} of {len(got)} runs "
              f"measurable) | {100 * covered:.1f}% of steps, {tail} | |")


def bench_torch(kind):
    modes = torch_modes()
    ms, dumps, costs = torch_rounds(kind, modes)
    for name, _, _ in modes:
        report_mode(kind, name, ms, dumps)
    report_costs(kind, costs)
    if "default" in dumps:
        path, events, dropped = dumps["default"]
        per = os.path.getsize(path) / max(events, 1)
        verdict(f"dump-bytes-{kind}", per <= 32 and dropped == 0,
                f"{os.path.getsize(path)} bytes for {events} events = {per:.1f} bytes/event, "
                f"{dropped} dropped")
        md.append(f"| dump, {kind}-bound loop, default | | {events} events | "
                  f"{per:.1f} bytes/event | |")


def cupti_residue():
    """Does CUPTI leave a cost once detached?  One long launch-bound run
    with the scaled default windows (one every 3.9 s): the steps just after
    each window against like steps just before it, in the same process,
    the median of the pairs with its interval over the windows."""
    env = traced("residue", DEFAULT_SCALED)
    t, w = measure(["python3", "test/bench/bench_torch.py", "launch", "--steps", "6000",
                    "--warmup", "30"], env, "ms_per_step", "residue")
    cost, wins = in_run_cost(w[0]) if w else ({}, [])
    after, inside = cost.get("after_detach") or {}, cost.get("inside") or {}
    ok = bool(cost.get("measured")) and after.get("windows", 0) >= 3
    detail = (f"{after.get('windows', 0)} windows: {100 * after.get('median', 0):+.2f}% "
              f"per step just after a window against like steps just before it (90% interval "
              f"{100 * after.get('lo', 0):+.2f}% to {100 * after.get('hi', 0):+.2f}%, "
              f"{'measurable' if after.get('measurable') else 'not measurable'}; medians "
              f"{after.get('after_p50_ns', 0) / 1e6:.3f} against "
              f"{after.get('before_p50_ns', 0) / 1e6:.3f} ms); inside "
              f"{100 * inside.get('median', 0):+.1f}%; windows {[x.get('reason') for x in wins]}")
    verdict("cupti-residue", ok, detail)
    md.append(f"| launch-bound loop, just after CUPTI is detached, {after.get('windows', 0)} "
              f"windows (one run) | | | {100 * after.get('median', 0):+.2f}% "
              f"({100 * after.get('lo', 0):+.2f}% to {100 * after.get('hi', 0):+.2f}%) | |")


def wait_rss(cmd):
    """Exit status, seconds and peak RSS (MiB) of cmd, its stdout dropped."""
    t0 = datetime.datetime.now()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, (datetime.datetime.now() - t0).total_seconds(), ru.ru_maxrss / 1024


def bench_analyzer():
    gen = os.path.join(WORK, "make_big_dump")
    subprocess.run(["cc", "-O2", "-std=c11", "-D_GNU_SOURCE", "-iquote", ".", "-Iinclude",
                    "-o", gen, "test/bench/make_big_dump.c"], check=True)
    rss = []
    for n in BIG_EVENTS:
        dump = os.path.join(WORK, f"big-{n}.bin")
        subprocess.run([gen, dump, str(n), "8"], check=True)
        rc, secs, mib = wait_rss([ANALYZE, "--json", dump])
        size = os.path.getsize(dump)
        os.unlink(dump)
        if rc != 0:
            verdict("analyzer-speed", False, f"analyzer exit {rc} on {n} events")
            return
        rss.append(mib)
        verdict(f"analyzer-speed-{n // 1_000_000}M", True,
                f"{n} events ({size / n:.1f} bytes each) in {secs:.2f} s = "
                f"{n / secs / 1e6:.1f} M events/s, peak {mib:.0f} MiB")
        md.append(f"| analyzer, {n // 1_000_000}M-event dump (CPU) | | {secs:.2f} s | "
                  f"{n / secs / 1e6:.1f} M events/s, {mib:.0f} MiB | |")
    verdict("analyzer-memory", rss[1] < rss[0] * 1.5 + 8,
            f"peak {rss[0]:.0f} MiB for {BIG_EVENTS[0]} events, {rss[1]:.0f} MiB for "
            f"{BIG_EVENTS[1]}: does not grow with the events")


def write_md(info):
    head = [f"Measured {info['date']} on {info['gpu']} (GPU, driver), CUDA {info['cuda']}, "
            f"PyTorch {info['torch']}, {info['cpu']}, clocksource {info['clocksource']}; "
            f"{ROUNDS} interleaved rounds of the PyTorch loops (the modes' order rotated each "
            f"round), ratio: the median of the per-round ratios to the untraced run of the "
            f"same round (spread: lowest-highest); {LAUNCH_ROUNDS} rounds of the launch loop; "
            f"{SCALE_NOTE}.", "",
            "| what | untraced | traced / measured | added / ratio | goal |",
            "| --- | --- | --- | --- | --- |"]
    text = "\n".join(head + md) + "\n"
    with open(os.path.join(OUT, "overhead.md"), "w") as f:
        f.write(text)
    print("\n" + text, flush=True)


def run_all():
    os.chdir(ROOT)
    info = machine()
    parts = [("overhead-launch", bench_launch),
             ("overhead-torch-launch", lambda: bench_torch("launch")),
             ("overhead-torch-compute", lambda: bench_torch("compute")),
             ("cupti-residue", cupti_residue),
             ("analyzer-speed", bench_analyzer)]
    skip = os.environ.get("GT_BENCH_SKIP", "").split(",")     # e.g. "analyzer-speed"
    for name, part in parts:
        if name in skip:
            continue
        t0 = datetime.datetime.now()
        try:
            part()
        except Exception as e:          # one broken part must not hide the rest
            verdict(name, False, f"{type(e).__name__}: {str(e)[:500]}")
        print(f"  [{name}: {(datetime.datetime.now() - t0).total_seconds():.0f} s]", flush=True)
    write_md(info)


def run():
    run_all()


if __name__ == "__main__":
    run_all()
    print(f"\n{sum(gpulib.results)} passed, {len(gpulib.results) - sum(gpulib.results)} failed")
    sys.exit(0 if all(gpulib.results) else 1)
