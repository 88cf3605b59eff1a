# SPDX-License-Identifier: MIT
"""healthy.py - data-parallel training (DDP, one process per GPU) of wide
layers on a large batch: the compute dwarfs the gradient all-reduce, which
DDP overlaps with the backward pass, and every rank keeps pace.

Expected: the ranks report finds no straggler and the job healthy
(compute-bound).

    torchrun --nproc-per-node 2 healthy.py
"""
import argparse

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from ddp_common import Job, mlp, step_range


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=8)
    args = ap.parse_args()

    job = Job()
    model = DDP(mlp(args.width, args.layers).to(job.device), device_ids=[job.local])
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.width, device=job.device)
    y = torch.randint(0, 10, (args.batch,), device=job.device)
    timer = job.timer(warmup=10, steps=args.steps)
    while not timer.done():
        with step_range():
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        timer.step()
    job.report(timer, args.batch)
    job.end()


if __name__ == "__main__":
    main()
