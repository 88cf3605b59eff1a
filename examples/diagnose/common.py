# SPDX-License-Identifier: MIT
"""common.py - what the diagnosis workloads share: burning CPU time for a
known while, timing the steady steps, how long to run (--steps, or for
DIAG_UNTIL seconds from the first step, so that a GPU timing window of the
tracer falls in the steady steps), and the "truth" line the GPU check
reads (ms per step, batch size, steps).  The timer waits for the GPU with
torch.cuda.synchronize unless given another wait (a JAX program's).

Where a workload spends its host time in one known function (bookkeeping
after a readback, an augmentation transform in DataLoader workers), a
share counter (HostShare in the training thread, WorkerShare in the
workers) adds `host_fn=<qualname> host_share=<0..1> host_of=thread|workers`
to the truth line (host_of: whose CPU time the share is of): the
CPU time spent in that function over the timed steps, against all the CPU
time of the thread (or the worker processes) that ran it over the same
steps.  That is what a sampler of host stacks must find.  CPU time spent
waiting inside a readback is left out of the whole: a sampler does not
sample a thread inside a CUDA call, and the function cannot run there.

The framework helpers (need()) stop with one clear line when a framework
the workload is written for is not installed."""
import json
import os
import sys
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


def optimize(loss, opt):
    """One optimizer step on a loss: backward, step, gradients dropped."""
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


def need(module, what):
    """Import a framework the workload is written for, or stop with one
    line saying what is missing (exit status 3)."""
    import importlib
    os.environ.setdefault("HF_HUB_OFFLINE", "1")     # models from configs only
    try:
        return importlib.import_module(module)
    except ImportError as e:
        print(f"{os.path.basename(sys.argv[0])}: needs {what} (import {module}: {e})",
              file=sys.stderr, flush=True)
        sys.exit(3)


def bookkeeping(log, record, ms):
    """What a training loop does with its numbers on the host: the record
    and running means per key in a dict, a JSON line into an in-memory log
    (kept short), repeated for ms milliseconds (the size of a real
    logging/metrics layer, made known).  Pure Python: holds the GIL."""
    end = time.perf_counter() + ms / 1000.0
    means = log.setdefault("means", {})
    lines = log.setdefault("lines", [])
    n = log["n"] = log.get("n", 0) + 1
    while True:
        for k, v in record.items():
            if isinstance(v, (int, float)):
                means[k] = means.get(k, 0.0) + (v - means.get(k, 0.0)) / n
        lines.append(json.dumps({"step": n, "record": record, "means": means}))
        if len(lines) > 256:
            del lines[:128]
        if time.perf_counter() >= end:
            return len(lines)


class HostShare:
    """The share of this thread's CPU time spent in `fn` over the timed
    steps.  Call the counter instead of fn; wrap a readback in waiting()
    (its CPU time is left out of the whole).  The timer starts it at the
    first timed step and reads it before its last wait."""

    def __init__(self, fn):
        self.fn, self.name = fn, fn.__qualname__
        self.start()

    def start(self):
        self.inside = self.waits = 0.0
        self.t0 = time.thread_time()

    def __call__(self, *args, **kwargs):
        t = time.thread_time()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.inside += time.thread_time() - t

    def waiting(self):
        return _Waiting(self)

    def text(self):
        total = time.thread_time() - self.t0 - self.waits
        if total <= 0:
            return ""
        return (f" host_fn={self.name} host_share={min(self.inside / total, 1.0):.3f}"
                " host_of=thread")


class _Waiting:
    """Context of a readback: its CPU time is counted apart."""

    def __init__(self, share):
        self.share = share

    def __enter__(self):
        self.t = time.thread_time()

    def __exit__(self, *exc):
        self.share.waits += time.thread_time() - self.t
        return False


class WorkerShare:
    """The share of the DataLoader workers' CPU time spent in `fn` over the
    timed steps.  Each worker adds its CPU time in fn, and its CPU time so
    far, to its slot of an array in shared memory (made before the workers
    start); start() and text(), in the training process, take the
    difference over the timed steps.  Call the counter instead of fn."""

    def __init__(self, fn, workers):
        import multiprocessing
        self.fn, self.name = fn, fn.__qualname__
        self.slots = multiprocessing.RawArray("d", 2 * max(workers, 1))
        self.base = [0.0] * len(self.slots)

    def __call__(self, *args, **kwargs):
        t = time.process_time()
        try:
            return self.fn(*args, **kwargs)
        finally:
            now = time.process_time()
            i = 2 * self._worker()
            self.slots[i] += now - t
            self.slots[i + 1] = now

    @staticmethod
    def _worker():
        from torch.utils.data import get_worker_info
        info = get_worker_info()
        return info.id if info is not None else 0

    def start(self):
        self.base = list(self.slots)

    def text(self):
        now = list(self.slots)
        inside = sum(now[i] - self.base[i] for i in range(0, len(now), 2))
        total = sum(now[i] - self.base[i] for i in range(1, len(now), 2))
        if total <= 0:
            return ""
        return (f" host_fn={self.name} host_share={min(inside / total, 1.0):.3f}"
                " host_of=workers")


class Timer:
    """Times steps after the first `warmup`, synchronizing at both ends
    with `sync` (a function that waits for the GPU).  `shares` (HostShare,
    WorkerShare) are started at the first timed step and read into the
    truth line."""

    def __init__(self, warmup, steps=None, sync=torch_sync, shares=()):
        self.warmup, self.n, self.t0, self.steps = warmup, 0, None, steps
        self.sync, self.shares = sync, list(shares)
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
            for s in self.shares:
                s.start()

    def report(self, batch, extra=""):
        extra += "".join(s.text() for s in self.shares)
        self.sync()
        steps = self.n - self.warmup
        ms = (time.perf_counter() - self.t0) * 1000.0 / max(steps, 1)
        print(f"truth ms_per_step={ms:.4f} batch={batch} steps={steps}{extra}", flush=True)
