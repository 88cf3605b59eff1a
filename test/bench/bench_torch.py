# SPDX-License-Identifier: MIT
"""bench_torch.py - milliseconds per training step of the loop in
examples/pytorch/train_mlp.py, for the overhead benchmark
(test/gpu/check_overhead.py), which runs it untraced, traced in each mode
and under torch.profiler.

    python3 bench_torch.py launch|compute [--steps N] [--warmup W] [--profiler]

launch: the example as it is (12 blocks of width 256, batch 64: about 150
small kernels a step, the host's launches set the pace); compute: 8 blocks
of width 2048, batch 8192 (the GPU sets the pace).  W warm-up steps, then N
timed steps; with --profiler all of them run under torch.profiler (CPU and
CUDA activities), as a user would profile.  Prints
    truth steps=N ms_per_step=X
"""
import argparse
import contextlib
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "examples", "pytorch"))
import train_mlp  # noqa: E402

SHAPES = {"launch": (256, 64, 12), "compute": (2048, 8192, 8)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=sorted(SHAPES))
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--profiler", action="store_true")
    args = ap.parse_args()
    width, batch, blocks = SHAPES[args.kind]

    torch.manual_seed(0)
    model = train_mlp.build(width, blocks)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ctx = contextlib.nullcontext()
    if args.profiler:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    with ctx:
        for _ in range(args.warmup):
            train_mlp.step(model, opt, batch, width)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            train_mlp.step(model, opt, batch, width)
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1e3 / args.steps
    print(f"truth steps={args.steps} ms_per_step={ms:.4f}", flush=True)


if __name__ == "__main__":
    main()
