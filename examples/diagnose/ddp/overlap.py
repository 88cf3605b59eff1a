# SPDX-License-Identifier: MIT
"""overlap.py - data-parallel training (DDP, one process per GPU) whose
gradient all-reduce does or does not overlap the backward pass.

  --mode waiting-hook    a communication hook that all-reduces each
                         bucket and waits for it (the host, then the
                         backward pass, stop until it is done)
  --mode after-backward  backward under no_sync(), then every gradient
                         all-reduced by hand: no_sync() used outside
                         gradient accumulation, nothing overlaps
  --mode overlapped      DDP as it is: each bucket's all-reduce runs while
                         the backward pass goes on

Expected for the first two: the ranks report finds no straggler,
communication, cause exposed_collectives.  Fixed twin: --mode overlapped.
Compare the job's step: the slowest rank's ms per step.

    torchrun --nproc-per-node 2 overlap.py --mode waiting-hook
"""
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from ddp_common import Job, backward, fixed_batches, mlp, train


def waiting_hook(state, bucket):
    """All-reduce the bucket and wait for it, host included."""
    buf = bucket.buffer()
    buf.div_(dist.get_world_size())
    dist.all_reduce(buf)
    torch.cuda.synchronize()
    fut = torch.futures.Future()
    fut.set_result(buf)
    return fut


def step_after_backward(model, params, x, y):
    """no_sync() around backward, then each gradient all-reduced."""
    with model.no_sync():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
    for p in params:
        p.grad.div_(dist.get_world_size())
        dist.all_reduce(p.grad)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("waiting-hook", "after-backward", "overlapped"),
                    default="waiting-hook")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=8)
    args = ap.parse_args()

    job = Job()
    model = DDP(mlp(args.width, args.layers).to(job.device), device_ids=[job.local])
    if args.mode == "waiting-hook":
        model.register_comm_hook(None, waiting_hook)
    params = [p for p in model.parameters() if p.requires_grad]
    step = backward
    if args.mode == "after-backward":
        def step(model, x, y):
            step_after_backward(model, params, x, y)
    train(job, model, fixed_batches(job, args.batch, args.width), args.steps, args.batch,
          params=params, step=step)


if __name__ == "__main__":
    main()
