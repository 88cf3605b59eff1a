# SPDX-License-Identifier: MIT
"""layers.py - inference through a stack of identical blocks
(nn.Sequential of --layers copies of Linear + GELU, all of one shape),
never waited for inside the loop: each step launches the same kernels
--layers times over, on other weights, and the host runs ahead of the GPU
until the launch queue is full.  The step is the whole stack, not a
block.  Expected: healthy (the GPU is busy with the products)."""
import argparse

import torch

from common import Timer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=300)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    blocks = [torch.nn.Sequential(torch.nn.Linear(args.width, args.width), torch.nn.GELU())
              for _ in range(args.layers)]
    model = torch.nn.Sequential(*blocks).cuda().eval()
    x = torch.randn(args.batch, args.width, device="cuda")
    timer = Timer(warmup=5, steps=args.steps)
    with torch.inference_mode():
        while not timer.done():
            y = model(x)
            timer.step()
    timer.report(args.batch, f" out={float(y[0, 0]):.3f}")


if __name__ == "__main__":
    main()
