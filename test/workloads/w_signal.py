# SPDX-License-Identifier: MIT
"""w_signal.py - Python's own SIGINT handling under the tracer: the driver
(the fake libcuda.so.1) reached through ctypes, N launches and syncs, then
a SIGINT to itself.

    python3 w_signal.py uncaught N   KeyboardInterrupt is not caught: Python
                                     dies of SIGINT, as it always does
    python3 w_signal.py caught N     it is caught, N more launches, exit 0
    python3 w_signal.py term N       SIGTERM (left at SIG_DFL by Python)

Prints "handlers int=... term=..." (what the signal module says after the
driver is in use) and the truth line of test/workloads/launcher.h.
"""
import ctypes
import os
import signal
import sys
import time

K_WORKER = b"_Z6workerPfi"


class Driver:
    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.launches = self.syncs = 0
        cu, vp = self.cu, ctypes.c_void_p
        self.check(cu.cuInit(0))
        dev, ctx, mod = ctypes.c_int(), vp(), vp()
        self.func, self.stream, self.buf = vp(), vp(), ctypes.c_uint64()
        self.check(cu.cuDeviceGet(ctypes.byref(dev), 0))
        self.check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
        self.check(cu.cuCtxSetCurrent(ctx))
        self.check(cu.cuModuleLoadData(ctypes.byref(mod), b"fake cubin"))
        self.check(cu.cuModuleGetFunction(ctypes.byref(self.func), mod, K_WORKER))
        self.check(cu.cuMemAlloc_v2(ctypes.byref(self.buf), ctypes.c_size_t(4096)))
        self.check(cu.cuStreamCreate(ctypes.byref(self.stream), 0))
        n = ctypes.c_int(1)
        self.args = (vp * 2)(ctypes.cast(ctypes.byref(self.buf), vp),
                             ctypes.cast(ctypes.byref(n), vp))
        self.n = n

    @staticmethod
    def check(rc):
        if rc != 0:
            raise RuntimeError(f"driver call failed: {rc}")

    def run(self, count):
        u = ctypes.c_uint
        for _ in range(count):
            self.check(self.cu.cuLaunchKernel(self.func, u(4), u(1), u(1), u(32), u(1),
                                              u(1), u(0), self.stream, self.args, None))
            self.launches += 1
            self.check(self.cu.cuStreamSynchronize(self.stream))
            self.syncs += 1

    def truth(self):
        print(f"truth pid={os.getpid()} launches={self.launches} syncs={self.syncs}",
              flush=True)


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    d = Driver()
    d.run(n)
    time.sleep(0.1)                 # the tracer's writer has run: handlers armed
    print("handlers int=%s term=%s" % (
        "python" if signal.getsignal(signal.SIGINT) is signal.default_int_handler
        else repr(signal.getsignal(signal.SIGINT)),
        "default" if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        else repr(signal.getsignal(signal.SIGTERM))), flush=True)
    if mode == "term":
        d.truth()
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    try:
        if mode == "caught":
            d.truth()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
        if mode != "caught":
            d.truth()
            raise
        d.run(n)
        d.truth()


if __name__ == "__main__":
    main()
