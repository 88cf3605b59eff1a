# SPDX-License-Identifier: MIT
"""gpulib.py - what the GPU checks share: running a program under the
tracer, analyzing its dump, and recording verdicts and table rows.

A check module (check_*.py beside this file) defines run(), which calls
verdict() once per check; check.py runs them all.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.getcwd()
LIB = os.path.join(ROOT, "build", "libgputrace.so")
ANALYZE = os.path.join(ROOT, "build", "gputrace-analyze")
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/gputrace-gpu"
WORK = tempfile.mkdtemp(prefix="gputrace-check-")
os.makedirs(OUT, exist_ok=True)
results = []
table = []


def run(cmd, env=None, timeout=300):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def truth(stdout):
    vals = {}
    for line in stdout.splitlines():
        if line.startswith("truth "):
            for k, v in re.findall(r"(\w+)=([-\d.]+)", line):
                vals[k] = float(v) if "." in v else int(v)
    return vals


def trace(cmd, name, extra_env=None):
    env = {"LD_PRELOAD": LIB, "GPUTRACE_OUTPUT": os.path.join(WORK, name + "-%p.bin")}
    env.update(extra_env or {})
    rc, out, err = run(cmd, env)
    m = re.search(r"gputrace: wrote (\S+) \((\d+) events, (\d+) dropped\)", err)
    if rc != 0 or not m:
        raise RuntimeError(f"{name}: rc={rc} stderr={err[-2000:]}")
    dump = m.group(1)
    rc, js, aerr = run([ANALYZE, "--json", dump])
    if rc != 0:
        raise RuntimeError(f"{name}: analyzer rc={rc} {aerr}")
    return truth(out), json.loads(js), dump


def verdict(name, ok, detail):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)


def dump_parts(path):
    """Bytes of a dump's GPU-record chunks (GT_CHUNK_GPU: header, records)
    and their record count; the rest is the host side."""
    with open(path, "rb") as f:
        d = f.read()
    off = struct.unpack_from("<I", d, 12)[0]
    gpu_bytes = gpu_recs = 0
    while off + 8 <= len(d):
        kind, size = struct.unpack_from("<II", d, off)
        if kind == 13 and size >= 16:
            gpu_bytes += 8 + size
            gpu_recs += struct.unpack_from("<I", d, off + 12)[0]
        off += 8 + size
    return len(d), gpu_bytes, gpu_recs


def launches(j):
    return sum(k["calls"] for k in j["kernels"])


def copies(j, direction):
    return sum(c["calls"] for c in j["copies"] if c["direction"] == direction)


def syncs(j, api):
    return sum(s["calls"] for s in j["syncs"] if s["api"] == api)


def sets(j):
    return sum(s["calls"] for s in j.get("sets", []))


