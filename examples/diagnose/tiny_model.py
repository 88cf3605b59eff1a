# SPDX-License-Identifier: MIT
"""tiny_model.py - a deep, narrow model: hundreds of small kernels per
step, each a few microseconds on the GPU, each launched by eager PyTorch.

Expected: kernel_efficiency (the GPU drains faster than the host launches).
Fixed twin: --graph (the whole step, optimizer included, captured once in
a CUDA graph and replayed).
"""
import argparse

import torch

from common import Timer


class Block(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.lin = torch.nn.Linear(width, width)
        self.norm = torch.nn.LayerNorm(width)

    def forward(self, x):
        return x + torch.nn.functional.gelu(self.norm(self.lin(x)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", action="store_true")
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--layers", type=int, default=48)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8192)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    model = torch.nn.Sequential(*[Block(args.width) for _ in range(args.layers)]).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, capturable=args.graph, foreach=True)
    x = torch.randn(args.batch, args.width, device="cuda")

    def step():
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    timer = Timer(warmup=5, steps=args.steps)
    if args.graph:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):              # warm up before capture
                opt.zero_grad(set_to_none=False)
                step()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        opt.zero_grad(set_to_none=False)
        with torch.cuda.graph(g):
            step()
        while not timer.done():
            g.replay()
            timer.step()
    else:
        while not timer.done():
            opt.zero_grad(set_to_none=False)
            step()
            timer.step()
    timer.report(args.batch)


if __name__ == "__main__":
    main()
