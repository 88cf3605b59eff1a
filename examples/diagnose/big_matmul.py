# SPDX-License-Identifier: MIT
"""big_matmul.py - large matrix products back to back: the GPU is never
idle.  Expected: healthy (compute-bound: look inside the kernels)."""
import argparse

import torch

from common import Timer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--n", type=int, default=8192)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    a = torch.randn(args.n, args.n, device="cuda")
    b = torch.randn(args.n, args.n, device="cuda")
    acc = torch.zeros((), device="cuda")
    timer = Timer(warmup=3, steps=args.steps)
    while not timer.done():
        c = a
        for _ in range(8):
            c = torch.tanh(c @ b * 1e-3)
        acc += c.mean()
        timer.step()
    timer.report(args.n, f" acc={float(acc):.3f}")


if __name__ == "__main__":
    main()
