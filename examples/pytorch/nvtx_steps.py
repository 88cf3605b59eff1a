# SPDX-License-Identifier: MIT
"""nvtx_steps.py - a PyTorch training loop marked with NVTX ranges.

Each step is a torch.cuda.nvtx range "step" with a nested "forward" range
around the forward pass; a mark "checkpoint" every 10 steps.  Then a few
steps under torch.autograd.profiler.emit_nvtx(), which names a range
after every operator ("aten::addmm, seq = ..."), and the GPU is kept busy
long enough for the sampler to see it.  gputrace records all of it with
LD_PRELOAD alone (it makes itself NVTX's injection library).

    python3 nvtx_steps.py --steps 30 --emit-steps 3

It prints "truth" lines with what it did.
"""
import argparse
import time

import torch


def build(width, blocks):
    layers = []
    for _ in range(blocks):
        layers += [torch.nn.Linear(width, width), torch.nn.GELU()]
    return torch.nn.Sequential(*layers).cuda()


def step(model, opt, x):
    torch.cuda.nvtx.range_push("step")
    torch.cuda.nvtx.range_push("forward")
    loss = model(x).pow(2).mean()
    torch.cuda.nvtx.range_pop()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    torch.cuda.nvtx.range_pop()
    return loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--emit-steps", type=int, default=3)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--min-seconds", type=float, default=2.0)
    args = ap.parse_args()

    torch.manual_seed(0)
    model = build(args.width, args.blocks)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.width, device="cuda")
    marks = 0
    t0 = time.perf_counter()
    for i in range(args.steps):
        step(model, opt, x)
        if i % 10 == 0:
            torch.cuda.nvtx.mark("checkpoint")
            marks += 1
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3 / max(args.steps, 1)
    with torch.autograd.profiler.emit_nvtx():
        for _ in range(args.emit_steps):
            step(model, opt, x)
    torch.cuda.synchronize()
    busy = 0                                   # keep the GPU busy for samples
    while time.perf_counter() - t0 < args.min_seconds:
        y = x @ x.T
        busy += 1
        if busy % 20 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    steps = args.steps + args.emit_steps
    print(f"truth steps={steps} forward={steps} marks={marks} "
          f"emit_steps={args.emit_steps} ms_per_step={ms:.3f} busy_matmuls={busy}")


if __name__ == "__main__":
    main()
