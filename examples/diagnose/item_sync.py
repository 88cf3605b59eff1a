# SPDX-License-Identifier: MIT
"""item_sync.py - a training loop that reads its loss with .item() every
step, then does some Python bookkeeping (logging, metrics).

Expected: communication (the .item() drains the GPU's queue, and the GPU
idles while the host does its bookkeeping).  Fixed twin: --no-item (the
loss is summed on the GPU and read once at the end, so the bookkeeping
overlaps the next step's GPU work).

The truth line names the bookkeeping function (common.burn) and its share
of the training thread's CPU time, the readback's own wait left out.
"""
import argparse

import torch

from common import HostShare, Timer, burn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-item", action="store_true")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--host-ms", type=float, default=1.5)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    model = torch.nn.Sequential(*[m for _ in range(4) for m in
                                  (torch.nn.Linear(args.width, args.width), torch.nn.ReLU())]).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.width, device="cuda")
    total = torch.zeros((), device="cuda")
    bookkeeping = HostShare(burn)
    timer = Timer(warmup=5, steps=args.steps, shares=[bookkeeping])
    while not timer.done():
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if args.no_item:
            total += loss.detach()
        else:
            with bookkeeping.waiting():
                value = loss.item()     # ITEM: the per-step sync
            total += value
        bookkeeping(args.host_ms)       # logging, metrics
        timer.step()
    timer.report(args.batch, f" total={float(total):.3f}")


if __name__ == "__main__":
    main()
