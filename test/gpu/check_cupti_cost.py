# SPDX-License-Identifier: MIT
"""check_cupti_cost.py - what each CUPTI state costs the launch-bound
PyTorch loop (test/bench/bench_torch.py launch), the measurement behind
GPUTRACE_GPU's defaults; run() is called by check.py.  Modes, interleaved,
GT_COST_ROUNDS rounds (2) of GT_COST_STEPS steps (600):

  untraced          no library
  host-only         GPUTRACE_GPU=off
  subscribed        windows, subscribed before CUDA starts (EARLY=1), no
                    window open
  detached          windows, subscribed only at the first window (100 ms at
                    the start), detached after it (GPUTRACE_GPU_SWITCH=finalize)
  all               GPUTRACE_GPU=all (every kind; launch latency timestamps
                    as the default leaves them: off on CUPTI before 13.4 U1)
  all-latency       the same with GPUTRACE_CUPTI_LATENCY=1, only with
                    GT_COST_LATENCY=1 (CUPTI 13.0 hung with them, see docs/validation.md)

Verdict lines are measurements (PASS unless a run fails).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpulib import LIB, ROOT, WORK, table, truth, verdict  # noqa: E402
from gpulib import run as sh  # noqa: E402

ROUNDS = int(os.environ.get("GT_COST_ROUNDS", "2"))
STEPS = os.environ.get("GT_COST_STEPS", "600")
NEVER = {"GPUTRACE_GPU": "windows", "GPUTRACE_GPU_WARMUP_MS": "600000",
         "GPUTRACE_CUPTI_EARLY": "1"}
MODES = [
    ("untraced", None),
    ("host-only", {"GPUTRACE_GPU": "off"}),
    ("subscribed", dict(NEVER)),
    ("detached", {"GPUTRACE_GPU": "windows", "GPUTRACE_CUPTI_EARLY": "0",
                  "GPUTRACE_GPU_SWITCH": "finalize", "GPUTRACE_GPU_WARMUP_MS": "0",
                  "GPUTRACE_GPU_WINDOW_MS": "100", "GPUTRACE_GPU_PERIOD_MS": "600000"}),
    ("all", {"GPUTRACE_GPU": "all"}),
]
if os.environ.get("GT_COST_LATENCY") == "1":
    MODES.append(("all-latency", {"GPUTRACE_GPU": "all", "GPUTRACE_CUPTI_LATENCY": "1"}))


def one(name, env):
    cmd = ["python3", os.path.join(ROOT, "test", "bench", "bench_torch.py"), "launch",
           "--steps", STEPS, "--warmup", "100"]
    if env is not None:
        env = dict(env, LD_PRELOAD=LIB, GPUTRACE_OUTPUT=os.path.join(WORK, f"cost-{name}-%p.bin"))
    rc, out, err = sh(cmd, env, timeout=300)
    t = truth(out)
    if rc or "ms_per_step" not in t:
        raise RuntimeError(f"{name}: rc={rc} {err[-600:]}")
    return t["ms_per_step"]


def run():
    ms = {m: [] for m, _ in MODES}
    try:
        for r in range(ROUNDS):
            order = MODES[r % len(MODES):] + MODES[:r % len(MODES)]
            for name, env in order:
                ms[name].append(one(name, env))
                print(f"  round {r + 1}: {name} {ms[name][-1]:.3f} ms/step", flush=True)
    except Exception as ex:             # report what was measured
        verdict("cupti-cost", False, f"{type(ex).__name__}: {str(ex)[:400]}")
    if not ms["untraced"]:
        return
    base = statistics.median(ms["untraced"])
    for name, _ in MODES:
        if not ms[name]:
            continue
        med = statistics.median(ms[name])
        verdict(f"cupti-cost-{name}", True,
                f"{med:.3f} ms/step, {med / base:.3f}x untraced (runs {ms[name]})")
        table.append((f"cost {name}", round(med / base, 3), round(med, 3), ""))
