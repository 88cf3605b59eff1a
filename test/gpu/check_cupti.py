# SPDX-License-Identifier: MIT
"""check_cupti.py - the GPU timeline (CUPTI) on a real GPU; run() is called
by check.py.  Verdicts:

  cupti-facts      cupti_probe.cu: subscribing before CUDA initializes does
                   not initialize it, a child forked after that can use
                   CUDA, external correlation records need an API kind,
                   and which id a cudart launch carries (the join's basis)
  cupti-switch     host time per empty-kernel launch with CUPTI attached but
                   its kinds disabled vs detached (cuptiFinalize), and what
                   each switch costs: the measurement behind
                   GPUTRACE_GPU_SWITCH's default
  cupti-join       examples/pytorch/train_mlp.py, 50 steps, GPUTRACE_GPU=all:
                   GPU kernel records = launches in the dump, every launch
                   joined, no kernel named otherwise than its launch
  cupti-gpu-time   kernel GPU time of steps 31-50 (50-step run minus 30-step
                   run) within 2% of torch.profiler's for 20 steps after 30
                   (a separate run: only one may hold CUPTI); kernel counts
  cupti-copies     copies joined; CUPTI's pinned/pageable agrees with the
                   host side's classification; bandwidth
  cupti-windows    a longer run in windows (finalize between them): every
                   launch inside a window joined, nothing crashes
  cupti-taken      torch.profiler holding CUPTI first (we subscribe at the
                   first window): the run goes on, host-only, said once,
                   the report says "taken"; by default we hold it and the
                   profiler sees no GPU events; GPUTRACE_CUPTI=0 gives it
                   back
  cupti-overhead   ms per step of the launch-bound loop: untraced, host
                   only, windows (both switches), all

GT_CUPTI_SKIP=probe,overhead leaves those two out (the overhead
benchmark, test/bench/overhead.sh, measures the same more carefully).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpulib import (ANALYZE, CUDA, LIB, ROOT, WORK, launches, table,  # noqa: E402
                    trace, truth, verdict)
from gpulib import run as sh  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(ROOT, "examples", "pytorch", "train_mlp.py")
EXDIR = os.path.dirname(TRAIN)
REPS = int(os.environ.get("GT_CUPTI_REPS", "1"))

# torch.profiler over n steps after warm ones: kernel count and GPU time.
PROFILE = r"""
import json, os, sys, tempfile
import torch
sys.path.insert(0, sys.argv[3])
import train_mlp as t
warm, n = int(sys.argv[1]), int(sys.argv[2])
torch.manual_seed(0)
model = t.build(256, 12)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for _ in range(warm):
    t.step(model, opt, 64, 256)
torch.cuda.synchronize()
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    for _ in range(n):
        t.step(model, opt, 64, 256)
    torch.cuda.synchronize()
path = os.path.join(tempfile.mkdtemp(), "trace.json")
prof.export_chrome_trace(path)
with open(path) as f:
    ev = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel"]
print(f"truth profiler_kernels={len(ev)} profiler_kernel_us={sum(e['dur'] for e in ev):.3f}")
"""

# torch.profiler started before CUDA is used, for about 3 s.
TAKEN = r"""
import time
import torch
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    x = torch.ones(1 << 16, device="cuda")
    end = time.time() + 3
    while time.time() < end:
        for _ in range(50):
            x = x * 1.0001
        torch.cuda.synchronize()
n = sum(1 for e in prof.events() if e.device_type.name == "CUDA")
print(f"truth profiler_gpu_events={n}")
"""


def gpu_ns(j):
    """Kernel GPU time and runs in a dump, launched or in graphs."""
    ns = sum(k.get("gpu_ns_total", 0) for k in j["kernels"])
    ns += sum(k["gpu_ns_total"] for k in j["gpu"].get("kernels_without_launch", []))
    n = sum(k.get("gpu_calls", 0) for k in j["kernels"])
    n += sum(k["calls"] for k in j["gpu"].get("kernels_without_launch", []))
    return ns, n


def check_probe():
    exe = os.path.join(WORK, "cupti_probe")
    libdirs = [os.path.join(CUDA, "extras", "CUPTI", "lib64"), os.path.join(CUDA, "lib64")]
    cmd = ["nvcc", "-O2", "-arch=sm_90", "-o", exe, os.path.join(HERE, "cupti_probe.cu")]
    cmd += [f"-L{d}" for d in libdirs]
    cmd += ["-lcupti", "-lcuda", "-Xlinker", "-rpath=" + ":".join(libdirs)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"nvcc cupti_probe.cu: {p.stderr[-800:]}")
    plain = [truth(sh([exe, "200000", "--plain"], timeout=120)[1])["phase_plain_us"] for _ in range(3)]
    rc, out, err = sh([exe, "200000"], timeout=300)
    t = truth(out)
    if rc or "phase_finalized_2_us" not in t:
        raise RuntimeError(f"cupti_probe rc={rc}: {err[-800:]} {out[-800:]}")
    ok = t["cuda_init_before_use"] == 0 and t["fork_child_rc"] == 0 and \
        t["phase_enabled_nodriver_ext"] == 0 and t["phase_inside_lazy_runtime_own_id"] == 0
    verdict("cupti-facts", ok,
            f"subscribe before CUDA initializes it: {t['cuda_init_before_use']}, forked child "
            f"rc {t['fork_child_rc']}, ext records without API kinds "
            f"{t['phase_enabled_nodriver_ext']}, with DRIVER {t['phase_enabled_driver_ext']} "
            f"(joined to kernels: {t['phase_enabled_driver_joined']}); id pushed inside the "
            f"driver call, RUNTIME kind: kernels get the previous launch's id "
            f"{t['phase_inside_lazy_runtime_previous_id']} times, their own "
            f"{t['phase_inside_lazy_runtime_own_id']}; CUPTI minus CLOCK_REALTIME "
            f"{t['cupti_minus_realtime_us']} us")
    dis = [t[f"phase_disabled_{i}_us"] for i in range(3)]
    fin = [t[f"phase_finalized_{i}_us"] for i in range(3)]
    en = [t[f"phase_reenabled_{i}_us"] for i in range(3)]
    best = "finalize" if min(fin) < min(dis) else "disable"
    verdict("cupti-switch", True,
            f"empty launch: {min(plain):.2f} us untraced, {t['phase_subscribed_us']:.2f} subscribed "
            f"only, {min(en):.2f} kinds on, outside windows {min(dis):.2f} disabled vs "
            f"{min(fin):.2f} detached (runs {dis} / {fin}) -> cheaper: {best} (default: finalize); "
            f"switch costs: disable {t['disable_us_0']} us, finalize {t['finalize_us_0']}/"
            f"{t['finalize_us_1']} us, subscribe {t['resubscribe_us_0']} us, enable "
            f"{t['enable_again_us_0']} us")
    table.append(("probe-us-disabled", round(min(dis), 2), "", ""))
    table.append(("probe-us-detached", round(min(fin), 2), "", ""))


def check_join():
    env = {"GPUTRACE_GPU": "all"}
    _, a, _ = trace(["python3", TRAIN, "--steps", "30"], "cupti30", env)
    _, b, _ = trace(["python3", TRAIN, "--steps", "50"], "cupti50", env)
    g = b["gpu"]
    rec = g["records"]
    n_launch = launches(b)
    ok = (g["cupti"] == "on" and rec["kernels"] == n_launch == g["launches_in_windows"] ==
          g["launches_joined"] and rec["name_mismatch"] == 0 and rec["orphans"] == 0 and
          rec["unjoined"] == 0 and rec["incomplete"] == 0 and not any(g["dropped"].values()))
    verdict("cupti-join", ok,
            f"50 steps: {n_launch} launches in the dump, {rec['kernels']} kernel records, "
            f"{g['launches_in_windows']} launches in the window, {g['launches_joined']} joined; "
            f"name mismatches {rec['name_mismatch']}, orphans {rec['orphans']}, unjoined "
            f"{rec['unjoined']}, incomplete {rec['incomplete']}, negative queue "
            f"{rec['negative_queue']}, dropped {g['dropped']}; busy {g['busy_ns'] / 1e6:.1f} ms "
            f"of {g['wall_ns'] / 1e6:.1f} ms; clock drift {g['clock']['drift_ppm']:.2f} ppm")
    table.append(("cupti-50-steps", n_launch, rec["kernels"], sum(g["dropped"].values())))
    top = sorted(b["kernels"], key=lambda k: -k.get("gpu_ns_total", 0))[:3]
    print("  top kernels (GPU ns, GPU p50, queue p50): " + "; ".join(
        f"{k['name'][:40]} {k['gpu_ns_total']} {k['gpu_ns_p50']} {k['queue_ns_p50']}" for k in top))
    return a, b


def check_gpu_time(a, b):
    rc, out, err = sh(["python3", "-c", PROFILE, "30", "20", EXDIR], timeout=600)
    t = truth(out)
    if rc or "profiler_kernel_us" not in t:
        raise RuntimeError(f"profiler run rc={rc}: {err[-800:]}")
    (ns_a, n_a), (ns_b, n_b) = gpu_ns(a), gpu_ns(b)
    ours, prof = (ns_b - ns_a) / 1e3, float(t["profiler_kernel_us"])
    diff = abs(ours - prof) / prof if prof else 1
    verdict("cupti-gpu-time", diff <= 0.02 and n_b - n_a == t["profiler_kernels"],
            f"steps 31-50: {ours:.1f} us of kernel GPU time in {n_b - n_a} kernels; "
            f"torch.profiler: {prof:.1f} us in {t['profiler_kernels']} kernels ({diff * 100:.2f}% apart)")


def check_copies(b):
    rows = [c for c in b["copies"] if c.get("gpu_calls")]
    bad = [(c["api"], c["memory"], c["cupti_memory_mismatch"]) for c in rows
           if c.get("cupti_memory_mismatch")]
    g = b["gpu"]
    verdict("cupti-copies", rows and not bad and g["copies_joined"] == g["copies_in_windows"],
            f"{g['copies_joined']}/{g['copies_in_windows']} copies and sets joined; " +
            "; ".join(f"{c['api']} {c['direction']} {c['memory']}: {c['gpu_calls']} runs "
                      f"{c['gpu_gbps']:.2f} GB/s" for c in rows[:4]) +
            (f"; CUPTI disagrees: {bad}" if bad else ""))


def check_windows():
    env = {"GPUTRACE_GPU": "windows", "GPUTRACE_GPU_WARMUP_MS": "2000",
           "GPUTRACE_GPU_WINDOW_MS": "500", "GPUTRACE_GPU_PERIOD_MS": "1500"}
    _, j, _ = trace(["python3", TRAIN, "--steps", "2500"], "cupti-windows", env)
    g = j["gpu"]
    n = g["windows"]["count"]
    joined = g["launches_joined"] / g["launches_in_windows"] if g["launches_in_windows"] else 0
    verdict("cupti-windows", n >= 3 and joined >= 0.999 and g["records"]["orphans"] == 0,
            f"{n} windows, {g['wall_ns'] / 1e9:.2f} s with GPU timing of {j['wall_ns'] / 1e9:.2f} s; "
            f"{g['launches_in_windows']} of {launches(j)} launches in windows, "
            f"{joined * 100:.2f}% joined; busy {g['busy_ns'] / 1e6:.1f} ms; orphans "
            f"{g['records']['orphans']}, dropped {g['dropped']}")


def taken_run(name, extra):
    env = {"LD_PRELOAD": LIB, "GPUTRACE_OUTPUT": os.path.join(WORK, name + "-%p.bin")}
    env.update(extra)
    rc, out, err = sh(["python3", "-c", TAKEN], env, timeout=300)
    said = re.findall(r"^gputrace: (?:CUPTI is held|GPUTRACE_CUPTI=0).*$", err, re.M)
    m = re.search(r"gputrace: wrote (\S+) ", err)
    state = json.loads(sh([ANALYZE, "--json", m.group(1)])[1])["env"]["cupti"] if m else "?"
    return rc, said, state, truth(out).get("profiler_gpu_events", -1), err


def check_taken():
    """Who gets CUPTI when torch.profiler wants it too."""
    rc1, said1, st1, n1, err1 = taken_run("taken", {"GPUTRACE_CUPTI_EARLY": "0",
                                                    "GPUTRACE_GPU_WARMUP_MS": "500"})
    rc2, _, st2, n2, _ = taken_run("holds", {"GPUTRACE_GPU": "all"})
    rc3, said3, st3, n3, _ = taken_run("given", {"GPUTRACE_CUPTI": "0"})
    ok = (rc1 == rc2 == rc3 == 0 and st1 == "taken" and len(said1) == 1 and n1 > 0
          and st2 == "on" and st3 == "off" and len(said3) == 1 and n3 > 0)
    verdict("cupti-taken", ok,
            f"profiler first (subscribing at the first window): rc {rc1}, report cupti {st1}, "
            f"said {len(said1)}x ({said1[0][:90] if said1 else err1[-300:]}), profiler saw "
            f"{n1} GPU events; GPUTRACE_GPU=all (we subscribe before CUDA starts): rc {rc2}, "
            f"cupti {st2}, "
            f"profiler saw {n2}; GPUTRACE_CUPTI=0: rc {rc3}, cupti {st3}, profiler saw {n3}")


def ms_per_step(env, steps):
    vals = []
    for _ in range(REPS):
        e = dict(env)
        if e.get("LD_PRELOAD"):
            e["GPUTRACE_OUTPUT"] = os.path.join(WORK, "ovh-%p.bin")
        vals.append(truth(sh(["python3", TRAIN, "--steps", str(steps)], e, timeout=600)[1])["ms_per_step"])
    return min(vals)


def check_overhead():
    steps = int(os.environ.get("GT_CUPTI_STEPS", "2000"))
    duty = {"GPUTRACE_GPU": "windows", "GPUTRACE_GPU_PLACE": "clock",
            "GPUTRACE_GPU_WARMUP_MS": "1000", "GPUTRACE_GPU_WINDOW_MS": "333",
            "GPUTRACE_GPU_PERIOD_MS": "5000"}       # 2 s in 30 s, by the clock
    cfgs = [("untraced", {}),
            ("host-only", {"LD_PRELOAD": LIB, "GPUTRACE_GPU": "off"}),
            ("windows", dict(duty, LD_PRELOAD=LIB, GPUTRACE_GPU_SWITCH="finalize")),
            ("windows-disable", dict(duty, LD_PRELOAD=LIB, GPUTRACE_GPU_SWITCH="disable")),
            ("all", {"LD_PRELOAD": LIB, "GPUTRACE_GPU": "all"})]
    ms = {name: ms_per_step(env, steps) for name, env in cfgs}
    base = ms["untraced"]
    ratio = {k: v / base for k, v in ms.items()}
    verdict("cupti-overhead", ratio["windows"] <= 1.10 and ratio["all"] <= 1.30,
            f"{steps} steps, ms/step: " + ", ".join(f"{k} {v:.3f} ({ratio[k]:.3f}x)" for k, v in ms.items()) +
            " (windows: 1/15 of the time, as the default 2 s in 30 s)")
    for k, v in ms.items():
        table.append((f"ms/step {k}", round(v, 3), "", ""))


def run():
    skip = os.environ.get("GT_CUPTI_SKIP", "").split(",")     # e.g. "probe,overhead"
    for check in (check_probe, check_taken, check_overhead):
        if check.__name__.replace("check_", "") in skip:
            continue
        try:
            check()
        except Exception as e:          # one failing part must not hide the rest
            verdict(check.__name__.replace("check_", "cupti-"), False, f"{type(e).__name__}: {str(e)[:500]}")
    try:
        a, b = check_join()
        check_gpu_time(a, b)
        check_copies(b)
    except Exception as e:
        verdict("cupti-join", False, f"{type(e).__name__}: {str(e)[:500]}")
    try:
        check_windows()
    except Exception as e:
        verdict("cupti-windows", False, f"{type(e).__name__}: {str(e)[:500]}")


if __name__ == "__main__":
    run()
