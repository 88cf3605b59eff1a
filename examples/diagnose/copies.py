# SPDX-License-Identifier: MIT
"""copies.py - every step uploads a large batch and computes a little on it.

    --mode pageable     x.to("cuda") from pageable memory
                        Expected: memory_batch (the host stages each copy,
                        the GPU waits); fixed twin: --mode nonblocking
    --mode pinned       pinned memory, x.to("cuda") without non_blocking
                        Expected: memory_batch (each copy waited for at once);
                        fixed twin: --mode nonblocking
    --mode nonblocking  pinned memory, x.to("cuda", non_blocking=True)
"""
import argparse

import torch

from common import Timer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["pageable", "pinned", "nonblocking"], required=True)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--mb", type=int, default=64)
    args = ap.parse_args()

    n = args.mb * (1 << 20) // 4
    host = [torch.randn(n) for _ in range(4)]
    if args.mode != "pageable":
        host = [h.pin_memory() for h in host]
    w = torch.randn(1024, 1024, device="cuda")
    acc = torch.zeros((), device="cuda")
    timer, i = Timer(warmup=5, steps=args.steps), 0
    while not timer.done():
        i += 1
        x = host[i % 4].to("cuda", non_blocking=args.mode == "nonblocking")
        y = x.view(-1, 1024)[:4096] @ w
        acc += y.sum() + x.mean()
        timer.step()
    timer.report(n * 4, f" acc={float(acc):.1f}")


if __name__ == "__main__":
    main()
