# SPDX-License-Identifier: MIT
"""common.py - what the diagnosis workloads share: burning CPU time for a
known while, timing the steady steps, how long to run (--steps, or for
DIAG_UNTIL seconds from the first step, so that a GPU timing window of the
tracer falls in the steady steps), and the "truth" line the GPU check
reads (ms per step, batch size, steps).  The timer waits for the GPU with
torch.cuda.synchronize unless given another wait (a JAX program's)."""
import os
import time


def torch_sync():
    """Wait for all of this process's work on the GPU (PyTorch)."""
    import torch
    torch.cuda.synchronize()


def burn(ms):
    """Keep this CPU busy for ms milliseconds (pure Python: holds the GIL)."""
    end = time.perf_counter() + ms / 1000.0
    x = 0
    while time.perf_counter() < end:
        x += 1
    return x


class Timer:
    """Times steps after the first `warmup`, synchronizing at both ends
    with `sync` (a function that waits for the GPU)."""

    def __init__(self, warmup, steps=None, sync=torch_sync):
        self.warmup, self.n, self.t0, self.steps = warmup, 0, None, steps
        self.sync = sync
        self.until = float(os.environ.get("DIAG_UNTIL", "0"))
        self.begin = time.perf_counter()

    def done(self):
        """Whether to stop: after `steps`, or DIAG_UNTIL seconds after the
        timer was made (the loop began) when that is set."""
        if self.until > 0:
            return (self.n > self.warmup + 2 and
                    time.perf_counter() - self.begin >= self.until)
        return self.n >= self.steps

    def step(self):
        self.n += 1
        if self.n == self.warmup:
            self.sync()
            self.t0 = time.perf_counter()

    def report(self, batch, extra=""):
        self.sync()
        steps = self.n - self.warmup
        ms = (time.perf_counter() - self.t0) * 1000.0 / max(steps, 1)
        print(f"truth ms_per_step={ms:.4f} batch={batch} steps={steps}{extra}", flush=True)
