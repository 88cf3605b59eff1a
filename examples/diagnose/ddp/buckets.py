# SPDX-License-Identifier: MIT
"""buckets.py - data-parallel training (DDP, one process per GPU) of a
deep narrow model whose gradients DDP all-reduces in buckets of
--bucket-mb: tiny buckets (the default here, 0.05 MB) make one all-reduce
per parameter, hundreds per step, each paying NCCL's and DDP's fixed cost.

Expected: the ranks report finds no straggler, communication, cause
small_collectives.  Fixed twin: --bucket-mb 25 (DDP's default).  Compare
the job's step: the slowest rank's ms per step.

    torchrun --nproc-per-node 2 buckets.py --bucket-mb 0.05
"""
import argparse

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from ddp_common import Job, mlp, step_range


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bucket-mb", type=float, default=0.05)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--layers", type=int, default=96)
    args = ap.parse_args()

    job = Job()
    model = DDP(mlp(args.width, args.layers).to(job.device), device_ids=[job.local],
                bucket_cap_mb=args.bucket_mb)
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
