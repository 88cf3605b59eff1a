# SPDX-License-Identifier: MIT
"""tiny_batch.py - a wide model trained with a tiny batch on a large GPU:
each kernel gets a few thread blocks, most SMs stay empty.

Expected: memory_batch (raise the batch size).  Fixed twin: --batch 512
(compare time per sample).

With --accum K the gradients of K micro-batches of --batch samples are
accumulated before each optimizer step (an effective batch of K times
--batch, the way a batch too large for memory is trained).  Expected with
a tiny micro-batch: memory_batch; fixed twin: the whole effective batch in
one micro-batch (--batch K*B, no --accum), same optimizer steps.
"""
import argparse

import torch

from common import Timer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--accum", type=int, default=1)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    layers = []
    for _ in range(args.layers):
        layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(args.batch, args.width, device="cuda")
    timer = Timer(warmup=5, steps=args.steps)
    while not timer.done():
        for _ in range(args.accum):
            loss = model(x).pow(2).mean()
            if args.accum > 1:
                loss = loss / args.accum
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        timer.step()
    timer.report(args.batch * args.accum)


if __name__ == "__main__":
    main()
