# SPDX-License-Identifier: MIT
"""ddp_train.py - a small DistributedDataParallel training job, for the
several-ranks analysis of gputrace (test/gpu/check_ranks.py).

One process per GPU (--world, default 1: runs in place; more: started
with multiprocessing's spawn, no torchrun needed), NCCL backend.  Each
step is an NVTX range "train_step": forward and backward of an MLP (DDP
all-reduces the gradients), optimizer step.  --slow-rank R --slow-ms M
makes rank R sleep M ms before each step, like a rank whose data loading
is slow: the other ranks then wait for it in every all-reduce.  Prints
"truth" lines: world, steps, slow_rank, slow_ms.

  LD_PRELOAD=build/libgputrace.so GPUTRACE_OUTPUT=/tmp/job/r-%p.bin \\
      python3 ddp_train.py --world 2 --slow-rank 1 --slow-ms 20
  build/gputrace-analyze /tmp/job
"""
import argparse
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def train(rank, world, args, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                      RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    dev = torch.device("cuda", rank)
    model = torch.nn.Sequential(torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
                                torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
                                torch.nn.Linear(args.width, 10)).to(dev)
    ddp = DDP(model, device_ids=[rank])
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x = torch.randn(args.batch, args.width, device=dev)
    y = torch.randint(0, 10, (args.batch,), device=dev)
    for _ in range(args.steps):
        torch.cuda.nvtx.range_push("train_step")
        if rank == args.slow_rank:
            time.sleep(args.slow_ms / 1000.0)       # slow data loading
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--world", type=int, default=1)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-ms", type=float, default=0.0)
    args = ap.parse_args()
    port = free_port()
    if args.world == 1:
        train(0, 1, args, port)
    else:
        mp.spawn(train, args=(args.world, args, port), nprocs=args.world, join=True)
    print(f"truth world={args.world} steps={args.steps} slow_rank={args.slow_rank} "
          f"slow_ms={args.slow_ms:.1f}", flush=True)


if __name__ == "__main__":
    main()
