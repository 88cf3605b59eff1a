# SPDX-License-Identifier: MIT
"""loader_copies.py - the three ways a PyTorch input pipeline copies batches
to the GPU, one per run, so a trace can be checked against the code:

    --mode pageable     DataLoader(pin_memory=False), x.to(cuda)
    --mode pinned       DataLoader(pin_memory=True),  x.to(cuda)  (waits)
    --mode nonblocking  DataLoader(pin_memory=True),  x.to(cuda, non_blocking=True)

Prints "truth batches=N batch_bytes=B".
"""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["pageable", "pinned", "nonblocking"], required=True)
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--features", type=int, default=3072)    # 3 MiB of float32 per batch
    args = ap.parse_args()

    data = torch.randn(args.batches * args.batch, args.features)
    loader = DataLoader(TensorDataset(data), batch_size=args.batch,
                        pin_memory=args.mode != "pageable", num_workers=0)
    model = torch.nn.Linear(args.features, 16).cuda()
    total = torch.zeros((), device="cuda")
    for (x,) in loader:
        x = x.to("cuda", non_blocking=args.mode == "nonblocking")
        total += model(x).sum()
    torch.cuda.synchronize()
    print(f"truth batches={args.batches} batch_bytes={args.batch * args.features * 4}"
          f" total={float(total):.3f}")


if __name__ == "__main__":
    main()
