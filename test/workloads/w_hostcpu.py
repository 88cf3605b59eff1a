# SPDX-License-Identifier: MIT
"""w_hostcpu.py - Python code that burns CPU between waits on the fake
driver (through ctypes), for the host stack sampler's test
(test/t/416-hostsample-python.t): its samples must name the Python
function that burns, Trainer.burn_python_here.

    python3 w_hostcpu.py [MS]

Prints "cpu ns=N": the main thread's CPU time from its first wait.
"""
import ctypes
import sys
import time


class Trainer:
    def __init__(self):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        ctx = ctypes.c_void_p()
        if (self.cuda.cuInit(0) != 0 or
                self.cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) != 0 or
                self.cuda.cuCtxSetCurrent(ctx) != 0):
            sys.exit("no context")

    def burn_python_here(self, ms):
        until = time.thread_time() + ms / 1000.0
        x = 1
        while time.thread_time() < until:
            for i in range(2000):
                x = (x * 48271 + i) % 2147483647
        return x

    def step(self, ms):
        if self.cuda.cuCtxSynchronize() != 0:
            sys.exit("a wait failed")
        return self.burn_python_here(ms)


def main():
    ms = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    t = Trainer()
    t0 = time.thread_time_ns()
    for _ in range(20):
        t.step(ms // 20)
    print(f"cpu ns={time.thread_time_ns() - t0}")


if __name__ == "__main__":
    main()
