# SPDX-License-Identifier: MIT
"""buckets.py - data-parallel training (DDP, one process per GPU) of a
deep narrow model whose gradients DDP all-reduces in buckets of
--bucket-mb: tiny buckets (the default here, 0.05 MB) make one all-reduce
per parameter, hundreds per step, each paying NCCL's and DDP's fixed cost.

Expected: the ranks report finds no straggler, communication, cause
small_collectives.  Fixed twin: --bucket-mb 25 (DDP's default).  Compare
the job's step: the slowest rank's ms per step.

    torchrun --nproc-per-node 2 buckets.py --bucket-mb 0.05

With DDP's default buckets and a wide, shallow model it is the healthy
run of the suite (suite.json's ddp-healthy):

    torchrun --nproc-per-node 2 buckets.py --bucket-mb 25 --width 4096 \\
        --layers 8 --batch 16384 --steps 200
"""
import argparse

from torch.nn.parallel import DistributedDataParallel as DDP

from ddp_common import Job, fixed_batches, mlp, train


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
    train(job, model, fixed_batches(job, args.batch, args.width), args.steps, args.batch)


if __name__ == "__main__":
    main()
