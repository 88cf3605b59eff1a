# SPDX-License-Identifier: MIT
"""image_aug.py - an image classifier (a timm ResNet-50 made from its
config, no download) fed by a DataLoader whose workers decode JPEGs with
PIL and augment them with torchvision (RandomResizedCrop, a flip,
ColorJitter).  The JPEGs are made at start (random smooth images encoded
with PIL into memory): no files, no download.

    --workers 2      on a machine of 16 cores the two workers cannot make
                     a batch as fast as the GPU trains on it, and the CPU
                     has cores to spare.  Expected: data_supply; fixed
                     twin: --workers 14.
    taskset -c 0,1 ... --workers 2
                     the same on the two CPUs the job may use: the workers
                     and the training process saturate them, and more
                     workers would not help.  Expected: cpu_preprocessing;
                     fixed twin: --jitter gpu (the same colour jitter, on
                     the batch on the GPU: the workers only decode, crop
                     and flip).

The truth line names the augmentation function (augment) and its share of
the workers' CPU time over the timed steps (decoding, collation and
sending the batch are the rest).
"""
import argparse
import io

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from common import Timer, WorkerShare, need, optimize

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
JITTER = dict(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)


def make_jpegs(n, size, seed=0):
    """n JPEGs of size x size: smooth random colour fields with noise, a
    few tens of kB each, like photos after resizing."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        small = Image.fromarray(rng.integers(0, 256, (12, 12, 3), dtype=np.uint8))
        base = np.asarray(small.resize((size, size)), dtype=np.int16)
        noisy = np.clip(base + rng.integers(-12, 13, base.shape), 0, 255).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(noisy).save(buf, format="JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def decode(data):
    from PIL import Image
    return Image.open(io.BytesIO(data)).convert("RGB")


def augment(img, pipeline):
    """The augmentation: the torchvision pipeline on a decoded image."""
    return pipeline(img)


class Jpegs(Dataset):
    def __init__(self, jpegs, n, pipeline, augment_fn):
        self.jpegs, self.n, self.pipeline, self.augment = jpegs, n, pipeline, augment_fn

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = decode(self.jpegs[i % len(self.jpegs)])
        return self.augment(img, self.pipeline), i % 1000


def pipelines(tv, size, jitter):
    """The workers' pipeline (uint8 CHW tensors out), and what the
    training process does to the batch on the GPU."""
    T = tv.transforms
    steps = [T.RandomResizedCrop(size), T.RandomHorizontalFlip()]
    if jitter == "cpu":
        steps.append(T.ColorJitter(**JITTER))
    steps.append(T.PILToTensor())
    on_gpu = T.ColorJitter(**JITTER) if jitter == "gpu" else None
    return T.Compose(steps), on_gpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--jitter", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--images", type=int, default=256)
    args = ap.parse_args()

    tv = need("torchvision", "torchvision")
    timm = need("timm", "timm")
    need("PIL", "Pillow")
    pipeline, on_gpu = pipelines(tv, args.size, args.jitter)
    share = WorkerShare(augment, args.workers)
    data = Jpegs(make_jpegs(args.images, 320), 10 ** 7, pipeline, share)
    loader = DataLoader(data, batch_size=args.batch, num_workers=args.workers,
                        pin_memory=True, persistent_workers=args.workers > 0,
                        drop_last=True)
    model = timm.create_model("resnet50", pretrained=False, num_classes=1000).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    mean = torch.tensor(MEAN, device="cuda").view(1, 3, 1, 1)
    std = torch.tensor(STD, device="cuda").view(1, 3, 1, 1)
    timer = Timer(warmup=5, steps=args.steps, shares=[share] if args.workers else [])
    for x, y in loader:
        if timer.done():
            break
        x = x.cuda(non_blocking=True).float().div_(255)
        y = y.cuda(non_blocking=True)
        if on_gpu is not None:
            x = on_gpu(x)
        x = (x - mean) / std
        optimize(torch.nn.functional.cross_entropy(model(x), y), opt)
        timer.step()
    timer.report(args.batch)


if __name__ == "__main__":
    main()
