# SPDX-License-Identifier: MIT
"""loader_cpu.py - a training loop whose batches need a CPU-heavy transform.

Expected: data_supply with --workers 0 (the transform runs in the training
loop; the GPU waits for every batch).  Its fixed twin is --workers 8
(persistent workers load ahead).  Under `taskset -c 0` the one CPU it may
use is saturated: cpu_preprocessing.

With --io each sample waits instead of computing (time.sleep: reading from
a slow disk or over the network), so the CPU is mostly idle.  Expected
with too few workers (--workers 2): data_supply; fixed twin: --workers 16.

    python3 loader_cpu.py --workers 0 --steps 60

Without --io the truth line names the transform (common.burn) and its
share of the CPU time of whoever runs it: the training thread with
--workers 0, else the workers together.
"""
import argparse
import time

import torch
from torch.utils.data import DataLoader, Dataset

from common import HostShare, Timer, WorkerShare, burn


class Slow(Dataset):
    """Samples that cost `ms` of CPU each to make (decode + augment), or
    with `io` that take `ms` of waiting each (a read)."""

    def __init__(self, n, features, ms, io=False, transform=burn):
        self.n, self.features, self.ms, self.io = n, features, ms, io
        self.transform = transform

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.io:
            time.sleep(self.ms / 1000.0)
        else:
            self.transform(self.ms)
        return torch.full((self.features,), float(i % 7)), i % 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--sample-ms", type=float, default=0.5)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--io", action="store_true")
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    model = torch.nn.Sequential(*[m for _ in range(6) for m in
                                  (torch.nn.Linear(args.width, args.width), torch.nn.ReLU())],
                                torch.nn.Linear(args.width, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    shares = []
    if not args.io:
        shares = [WorkerShare(burn, args.workers) if args.workers else HostShare(burn)]
    data = Slow(100000 * args.batch, args.width, args.sample_ms, args.io,
                shares[0] if shares else burn)
    loader = DataLoader(data, batch_size=args.batch, num_workers=args.workers,
                        persistent_workers=args.workers > 0, pin_memory=True,
                        prefetch_factor=4 if args.workers else None)
    timer = Timer(warmup=5, steps=args.steps, shares=shares)
    for x, y in loader:
        if timer.done():
            break
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        for _ in range(4):              # a few optimizer steps per batch
            loss = torch.nn.functional.cross_entropy(model(x.repeat(64, 1)), y.repeat(64))
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        timer.step()
    timer.report(args.batch)


if __name__ == "__main__":
    main()
