# SPDX-License-Identifier: MIT
"""w_stack_ctypes.py - waits on the fake driver from known Python lines,
for the call site tests (test/t/4*-callsite*.t).

ctypes.CDLL releases the GIL around each foreign call, as PyTorch does
around .item(); ctypes.PyDLL keeps it.  The lines marked LINE-RELEASED and
LINE-HELD make the waits; the test finds them by those marks.

    python3 w_stack_ctypes.py [N]
"""
import ctypes
import sys


class Trainer:
    def __init__(self):
        self.released = ctypes.CDLL("libcuda.so.1")
        self.held = ctypes.PyDLL("libcuda.so.1")
        ctx = ctypes.c_void_p()
        if (self.released.cuInit(0) != 0 or
                self.released.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) != 0 or
                self.released.cuCtxSetCurrent(ctx) != 0):
            sys.exit("no context")

    def step_released(self):
        return self.released.cuCtxSynchronize()  # LINE-RELEASED

    def step_held(self):
        return self.held.cuStreamSynchronize(None)  # LINE-HELD


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    t = Trainer()
    for _ in range(n):
        if t.step_released() != 0 or t.step_held() != 0:
            sys.exit("a wait failed")
    print(f"truth waits={2 * n}")


if __name__ == "__main__":
    main()
