# SPDX-License-Identifier: MIT
"""amp_channels_last.py - a torchvision ResNet-50 (made from its config, no
download) trained on a batch already on the GPU.

By default it runs as written for a CPU: fp32 weights and activations in
NCHW (cuDNN's TF32 for the convolutions, PyTorch's default, and nothing
more), so the tensor cores do a fraction of what they can and cuDNN
converts layouts around its kernels.  Expected: kernel_efficiency.  Fixed
twin: --amp (bf16 autocast and channels_last for the model and the
batch); the twin is also the suite's healthy real model.
"""
import argparse

import torch

from common import Timer, need, optimize


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--amp", action="store_true", help="bf16 autocast + channels_last")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--size", type=int, default=224)
    args = ap.parse_args()

    tv = need("torchvision", "torchvision")
    torch.backends.cudnn.benchmark = True
    model = tv.models.resnet50(weights=None, num_classes=1000).cuda()
    x = torch.randn(args.batch, 3, args.size, args.size, device="cuda")
    y = torch.randint(0, 1000, (args.batch,), device="cuda")
    if args.amp:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    timer = Timer(warmup=5, steps=args.steps)
    while not timer.done():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.amp):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimize(loss, opt)
        timer.step()
    timer.report(args.batch)


if __name__ == "__main__":
    main()
