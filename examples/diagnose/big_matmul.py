# SPDX-License-Identifier: MIT
"""big_matmul.py - large matrix products back to back: the GPU is never
idle.  Expected: healthy (compute-bound: look inside the kernels).

With --hog another process computes on the same GPU and the two contexts
take turns on it.  The program starts that process itself (this file with
--as-hog, without the tracer: it is not the job being measured), waits
until it computes, then times its own steps; the other process stops when
this one ends.  Expected: environment (another process's work on the
GPU); fixed twin: the same without --hog.
"""
import argparse
import os
import subprocess
import sys

import torch

from common import Timer


def hog(n):
    """Products of n x n matrices until the parent process is gone."""
    parent = os.getppid()
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda") * 1e-2
    torch.cuda.synchronize()
    print("ready", flush=True)
    while os.getppid() == parent:
        for _ in range(16):
            a = torch.tanh(a @ b)
        torch.cuda.synchronize()


def start_hog(n):
    """The other process, untraced, once it computes."""
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and not k.startswith("GPUTRACE")}
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--as-hog",
                          "--n", str(n)], env=env, stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        p.kill()
        sys.exit("big_matmul.py: the other process did not start")
    return p


def run(args):
    a = torch.randn(args.n, args.n, device="cuda")
    b = torch.randn(args.n, args.n, device="cuda")
    acc = torch.zeros((), device="cuda")
    timer = Timer(warmup=3, steps=args.steps)
    while not timer.done():
        c = a
        if args.chain:              # the same product, nothing else
            for _ in range(args.chain):
                c = c @ b
        else:
            for _ in range(8):
                c = torch.tanh(c @ b * 1e-3)
            acc += c.mean()
        timer.step()
    timer.report(args.n, f" acc={float(acc):.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--hog", action="store_true")
    ap.add_argument("--chain", type=int, default=0,
                    help="a step of this many equal products and nothing else")
    ap.add_argument("--as-hog", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    if args.as_hog:
        hog(args.n)
        return
    other = start_hog(args.n) if args.hog else None
    try:
        run(args)
    finally:
        if other:
            other.terminate()
            other.wait()


if __name__ == "__main__":
    main()
