# SPDX-License-Identifier: MIT
"""straggler.py - data-parallel training (DDP, one process per GPU) in
which one rank makes its batches in the training loop while the others
have DataLoader workers: that rank is slow, and the others wait for it in
every all-reduce.

Expected: the ranks report names --slow-rank as the straggler, its cause
data_supply, the others waiting in all-reduce.  Fixed twin: --slow-rank
-1 (every rank has its workers).  Compare the job's step: the slowest
rank's ms per step.

    torchrun --nproc-per-node 2 straggler.py --slow-rank 1
"""
import argparse

import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset

from ddp_common import Job, backward, burn, mlp, train


class Slow(Dataset):
    """Samples that cost `ms` of CPU each to make (decode + augment)."""

    def __init__(self, n, features, ms):
        self.n, self.features, self.ms = n, features, ms

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        burn(self.ms)
        return torch.full((self.features,), float(i % 7)), i % 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slow-rank", type=int, default=1)
    ap.add_argument("--workers", type=int, default=8, help="of the other ranks")
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--sample-ms", type=float, default=0.3)
    ap.add_argument("--width", type=int, default=2048)
    args = ap.parse_args()

    job = Job()
    workers = 0 if job.rank == args.slow_rank else args.workers
    model = DDP(mlp(args.width, 6).to(job.device), device_ids=[job.local])
    data = Slow(100000 * args.batch, args.width, args.sample_ms)
    loader = DataLoader(data, batch_size=args.batch, num_workers=workers,
                        persistent_workers=workers > 0, pin_memory=True,
                        prefetch_factor=4 if workers else None)

    def step(model, x, y):
        x = x.to(job.device, non_blocking=True)
        y = y.to(job.device, non_blocking=True)
        backward(model, x.repeat(64, 1), y.repeat(64))

    train(job, model, loader, args.steps, args.batch, lr=1e-3, step=step)


if __name__ == "__main__":
    main()
