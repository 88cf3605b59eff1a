# SPDX-License-Identifier: MIT
"""sync_item.py - a training loop that reads its loss with .item() at every
step: one host wait per step, made from a known line of Python.

Under gputrace, the top wait call site of the report should start with
that line ("sync_item.py:N in train_step"), which the program prints as
"truth item_line=N", with the steps it ran and the time per step.

    python3 sync_item.py --steps 200
"""
import argparse
import time

import torch


def build(width, blocks):
    layers = []
    for _ in range(blocks):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).cuda()


def train_step(model, opt, x):
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.item()  # ITEM: the per-step sync


def item_line():
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if "# ITEM:" in line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--batch", type=int, default=256)
    args = ap.parse_args()

    model = build(args.width, args.blocks)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.width, device="cuda")
    for _ in range(5):                      # warm-up: allocator, kernels
        train_step(model, opt, x)
    t0 = time.perf_counter()
    for _ in range(args.steps):
        train_step(model, opt, x)
    ms = (time.perf_counter() - t0) * 1000 / args.steps
    print(f"truth item_line={item_line()} steps={args.steps + 5} ms_per_step={ms:.4f}")


if __name__ == "__main__":
    main()
