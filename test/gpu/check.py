# SPDX-License-Identifier: MIT
"""check.py - traces the examples on a real GPU and checks what the dump
holds against what the programs did (run by check.sh).

One verdict line per check, then a table.  Core checks here:
  cuda-static     nvcc-built program (static cudart): launches, copies,
                  memsets and waits equal the program's own counts
  cuda-ptsz       the same built with --default-stream per-thread
  driver-lcuda    a C program linked with -lcuda
  torch-launches  launches of 20 PyTorch training steps = kernels that
                  torch.profiler counts for 20 steps of the same loop
  cupy, jax       other frameworks are traced (launches seen, names known)
  overhead        empty-kernel launch loop, traced vs untraced
Then every check_*.py module beside this file (its run()).
"""
import glob
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpulib import (ANALYZE, CUDA, LIB, OUT, WORK, copies, dump_parts, launches, results,  # noqa: E402
                    run, sets, syncs, table, trace, truth, verdict)


def check_counts(name, t, j, names):
    got = {"launches": launches(j), "htod": copies(j, "HtoD"), "dtoh": copies(j, "DtoH"),
           "ctx_syncs": syncs(j, "cuCtxSynchronize")}
    if "sets" in t:
        got["sets"] = sets(j)
    if "stream_syncs" in t:
        got["stream_syncs"] = syncs(j, "cuStreamSynchronize")
    bad = {k: (got[k], t[k]) for k in got if got[k] != t[k]}
    seen = {k["name"] for k in j["kernels"]}
    missing = [n for n in names if n not in seen]
    detail = " ".join(f"{k}={got[k]}/{t[k]}" for k in got)
    if missing:
        detail += f" missing kernels {missing} (seen {sorted(seen)[:6]})"
    verdict(name, not bad and not missing and j["dropped"] == 0, detail)
    table.append((name, launches(j), j["events"], j["dropped"]))


def build():
    exe = os.path.join(WORK, "vecadd")
    subprocess.run(["nvcc", "-O2", "-arch=sm_90", "-o", exe, "examples/cuda/vecadd.cu"], check=True)
    subprocess.run(["nvcc", "-O2", "-arch=sm_90", "--default-stream", "per-thread", "-o",
                    exe + "_ptsz", "examples/cuda/vecadd.cu"], check=True)
    subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-o", os.path.join(WORK, "kernels.cubin"),
                    "examples/cuda/kernels.cu"], check=True)
    subprocess.run(["cc", "-O2", "-I", CUDA + "/include", "-o", os.path.join(WORK, "driver_api"),
                    "examples/cuda/driver_api.c", "-L", CUDA + "/lib64/stubs", "-lcuda"], check=True)


VEC_NAMES = ["vec_add(float const*, float const*, float*, int)", "scale(float*, float, int)"]


def check_cuda():
    for name, exe in (("cuda-static", "vecadd"), ("cuda-ptsz", "vecadd_ptsz")):
        t, j, _ = trace([os.path.join(WORK, exe), "200"], name)
        check_counts(name, t, j, VEC_NAMES)
    t, j, _ = trace([os.path.join(WORK, "driver_api"), os.path.join(WORK, "kernels.cubin"), "300"],
                    "driver-lcuda")
    check_counts("driver-lcuda", t, j, ["saxpy"])


def check_torch():
    script = "examples/pytorch/train_mlp.py"
    _, a, _ = trace(["python3", script, "--steps", "30"], "torch30")
    tb, b, dump = trace(["python3", script, "--steps", "50"], "torch50")
    rc, out, err = run(["python3", script, "--steps", "30", "--profile-steps", "20"])
    prof = truth(out).get("profiler_kernels", -1)
    delta = launches(b) - launches(a)
    verdict("torch-launches", delta == prof and b["dropped"] == 0,
            f"dump: {delta} launches in steps 31-50; torch.profiler: {prof} kernels in 20 steps")
    table.append(("torch-50-steps", launches(b), b["events"], b["dropped"]))
    # The host side is bounded per event; the GPU records of a window
    # (CUPTI's, one per kernel, copy or wait timed) are counted apart.
    size, gpu_bytes, gpu_recs = dump_parts(dump)
    host = size - gpu_bytes
    verdict("dump-size", host / b["events"] <= 32,
            f"{host} bytes of host side for {b['events']} events = {host / b['events']:.1f} B/event; "
            f"{gpu_bytes} bytes of {gpu_recs} GPU records"
            + (f" = {gpu_bytes / gpu_recs:.1f} B/record" if gpu_recs else ""))
    # examples/sample-pytorch.bin, what `make demo` shows without a GPU:
    # 100 steps with every kernel timed, as `make demo` traces on a GPU.
    _, _, sample = trace(["python3", script, "--steps", "100"], "sample", {"GPUTRACE_GPU": "all"})
    shutil.copy(sample, os.path.join(OUT, "sample-pytorch.bin"))
    with open(os.path.join(OUT, "sample-pytorch.txt"), "w") as f:
        f.write(run([ANALYZE, sample])[1])


def check_frameworks():
    progs = {
        "cupy": "import cupy as cp; a = cp.arange(1 << 20, dtype=cp.float32); print(float((a * 2).sum()))",
        "jax": "import jax.numpy as jnp; x = jnp.ones((512, 512)); print(float((x @ x).sum()))",
    }
    for name, code in progs.items():
        try:
            _, j, _ = trace(["python3", "-c", code], name)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            verdict(name, False, str(e)[:300])
            continue
        named = sum(1 for k in j["kernels"] if not k["name"].startswith("<unknown"))
        verdict(name, launches(j) > 0 and named == len(j["kernels"]),
                f"{launches(j)} launches of {len(j['kernels'])} kernels, {named} named")
        table.append((name, launches(j), j["events"], j["dropped"]))


def check_launch_quick():
    exe = os.path.join(WORK, "vecadd")
    plain, traced = [], []
    for _ in range(5):
        plain.append(truth(run([exe, "1", "--empty", "200000"])[1])["us_per_launch"])
        traced.append(truth(run([exe, "1", "--empty", "200000"],
                                {"LD_PRELOAD": LIB,
                                 "GPUTRACE_OUTPUT": os.path.join(WORK, "ovh-%p.bin")})[1])["us_per_launch"])
    p, t = statistics.median(plain), statistics.median(traced)
    added = (t - p) * 1000
    verdict("overhead", True, f"empty launch {p * 1000:.0f} ns untraced, {t * 1000:.0f} ns traced: "
            f"{added:+.0f} ns, rate ratio {p / t:.3f} (runs: {plain} / {traced})")
    table.append(("overhead-ns-added", round(added), "", ""))


def plugins():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "check_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        yield mod.run


def main():
    build()
    only = os.environ.get("GT_CHECKS")      # e.g. "check_cuda,check_nccl"
    checks = [check_cuda, check_torch, check_frameworks, check_launch_quick] + list(plugins())
    for check in checks:
        name = getattr(check, "__module__", "") if check.__name__ == "run" else check.__name__
        if only and name not in only.split(","):
            continue
        try:
            check()
        except Exception as e:          # one broken check must not hide the rest
            verdict(name, False, f"{type(e).__name__}: {str(e)[:500]}")
    print("\n%-22s %10s %10s %8s" % ("run", "launches", "events", "dropped"))
    for row in table:
        print("%-22s %10s %10s %8s" % row)
    print(f"\n{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
