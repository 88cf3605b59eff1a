# SPDX-License-Identifier: MIT
"""train_mlp.py - a small, launch-bound PyTorch training loop.

12 blocks of Linear + LayerNorm + GELU, AdamW, data made on the CPU and
copied to the GPU every step, loss.item() every step: the shape of many real
training loops, with about a hundred small kernels per step.

    python3 train_mlp.py --steps 50
    python3 train_mlp.py --steps 50 --profile-steps 20 --profile-out k.json
        (runs --steps steps, then 20 more under torch.profiler, and writes
         how many GPU kernels the profiler saw in those 20 steps)
"""
import argparse
import json
import os
import tempfile
import time

import torch


def build(width, blocks):
    layers = []
    for _ in range(blocks):
        layers += [torch.nn.Linear(width, width), torch.nn.LayerNorm(width), torch.nn.GELU()]
    return torch.nn.Sequential(*layers).cuda()


def step(model, opt, batch, width):
    x = torch.randn(batch, width).cuda()        # CPU data, HtoD copy
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.item()                           # DtoH copy + wait


def count_profiled_kernels(model, opt, args):
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(args.profile_steps):
            step(model, opt, args.batch, args.width)
        torch.cuda.synchronize()
    path = os.path.join(tempfile.mkdtemp(), "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    return len(kernels)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--blocks", type=int, default=12)
    ap.add_argument("--profile-steps", type=int, default=0)
    ap.add_argument("--profile-out")
    args = ap.parse_args()

    torch.manual_seed(0)
    model = build(args.width, args.blocks)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    t0 = time.perf_counter()
    for _ in range(args.steps):
        loss = step(model, opt, args.batch, args.width)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3 / max(args.steps, 1)
    print(f"truth steps={args.steps} ms_per_step={ms:.3f} loss={loss:.4f}")
    if args.profile_steps:
        n = count_profiled_kernels(model, opt, args)
        print(f"truth profiled_steps={args.profile_steps} profiler_kernels={n}")
        if args.profile_out:
            with open(args.profile_out, "w") as f:
                json.dump({"steps": args.profile_steps, "kernels": n}, f)


if __name__ == "__main__":
    main()
