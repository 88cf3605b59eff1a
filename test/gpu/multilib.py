# SPDX-License-Identifier: MIT
"""multilib.py - the pure logic of the multi-GPU check (check_multi.py),
apart so that it is tested without a GPU (test/gpu/test_multilib.py, run
by test/t/823-check-multi.t): NVLink multicast kept off, the command a
user would write, each rank's truth line, the job's step (the slowest
rank's), the verdict's rank and cause against the expected ones, and the
measured gain against the predicted range.  Imports nothing of the GPU
checks: importing gpulib makes folders.
"""
import os
import re

# NVLink multicast (NVLS) off in every process of a multi-GPU job; the
# workloads set the same (examples/diagnose/ddp/ddp_common.py).
NO_MULTICAST = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}
NEAR = 0.10             # measured gain within the predicted range +- NEAR
MIN_GPUS = 2
MAX_RANKS = 8


def world_size(gpus):
    """Ranks to run on so many GPUs: one per GPU, up to MAX_RANKS; 0 with
    fewer than MIN_GPUS."""
    return min(gpus, MAX_RANKS) if gpus >= MIN_GPUS else 0


def skip_line(gpus):
    """The one line said when the check cannot run, or None."""
    if gpus >= MIN_GPUS:
        return None
    return (f"SKIP multi: {gpus} GPU{'' if gpus == 1 else 's'} visible; the multi-GPU "
            f"suite needs {MIN_GPUS} or more (NCCL kernels run only between GPUs)")


def command(gputrace, folder, world, suite_dir, cmd):
    """gputrace record into folder/run-%r.bin, torchrun one process per
    GPU, as a user writes it."""
    script = os.path.join(suite_dir, cmd[0])
    return [gputrace, "record", "-o", os.path.join(folder, "run-%r.bin"), "--",
            "torchrun", "--standalone", "--nproc-per-node", str(world), script, *cmd[1:]]


def environment(extra=None):
    env = dict(NO_MULTICAST, PYTHONUNBUFFERED="1")
    env.update(extra or {})
    env.update(NO_MULTICAST)            # whatever extra said
    return env


def truths(stdout):
    """Each rank's truth line ("truth ms_per_step=... rank=R ..."; torchrun
    may prefix it): {rank: {key: number}}."""
    out = {}
    for line in stdout.splitlines():
        m = re.search(r"\btruth (.*)$", line)
        if not m:
            continue
        vals = {k: float(v) if "." in v else int(v)
                for k, v in re.findall(r"(\w+)=([-\d.]+)", m.group(1))}
        if "rank" in vals and "ms_per_step" in vals:
            out[vals["rank"]] = vals
    return out


def truth_problems(t, world):
    """What is wrong with the truth lines of a job of world ranks."""
    bad = []
    if sorted(t) != list(range(world)):
        bad.append(f"truth lines of ranks {sorted(t)}, expected 0..{world - 1}")
    steps = {v.get("steps") for v in t.values()}
    if len(steps) > 1:
        bad.append(f"ranks timed different step counts {sorted(steps)}")
    return bad


def job_step_ms(t):
    """The job's step: the slowest rank's ms per step, and that rank."""
    rank = max(t, key=lambda r: t[r]["ms_per_step"])
    return t[rank]["ms_per_step"], rank


def verdict_problems(expect, v):
    """The ranks report's verdict (its JSON "verdict") against what the
    suite expects: rank (None: no straggler), class, cause (if given)."""
    if not v:
        return ["no verdict"]
    bad = []
    if v.get("rank") != expect.get("rank"):
        bad.append(f"rank {v.get('rank')}, expected {expect.get('rank')}")
    if v.get("class") != expect.get("class"):
        bad.append(f"class {v.get('class')}, expected {expect.get('class')}")
    if "cause" in expect and v.get("cause") != expect["cause"]:
        bad.append(f"cause {v.get('cause')}, expected {expect['cause']}")
    return bad


def measured_gain(before_ms, after_ms):
    """The job's step saved by the fix, a share of the step before."""
    return 1 - after_ms / before_ms


def gain_ok(gain, lo, hi, near=NEAR):
    """Whether a measured gain is inside the predicted range, or near it."""
    return lo is not None and hi is not None and lo - near <= gain <= hi + near
