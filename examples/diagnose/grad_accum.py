# SPDX-License-Identifier: MIT
"""grad_accum.py - a timm ResNet-18 (made from its config, no download)
trained with gradient accumulation: each optimizer step sums the
gradients of --accum micro-batches of --micro images, the way a batch
thought too large for memory is trained.  A micro-batch of 4 leaves most
of the GPU empty in every kernel, and the host launches each kernel for
a few images.

Expected: memory_batch (the effective batch fits in one micro-batch).
Fixed twin: --micro 64 --accum 1 (the same 64 images per optimizer step
in one pass; compared per sample).
"""
import argparse

import torch

from common import Timer, need


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--micro", type=int, default=4)
    ap.add_argument("--accum", type=int, default=16)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--size", type=int, default=160)
    ap.add_argument("--model", default="resnet18")
    args = ap.parse_args()

    timm = need("timm", "timm")
    model = timm.create_model(args.model, pretrained=False, num_classes=100).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    xs = torch.randn(args.accum, args.micro, 3, args.size, args.size, device="cuda")
    ys = torch.randint(0, 100, (args.accum, args.micro), device="cuda")
    timer = Timer(warmup=3, steps=args.steps)
    while not timer.done():
        for k in range(args.accum):
            loss = torch.nn.functional.cross_entropy(model(xs[k]), ys[k]) / args.accum
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        timer.step()
    timer.report(args.micro * args.accum)


if __name__ == "__main__":
    main()
