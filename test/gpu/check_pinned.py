# SPDX-License-Identifier: MIT
"""check_pinned.py - pinned vs pageable copies on a real GPU.

examples/pytorch/loader_copies.py in its three modes; each batch copy must
land in the class the code implies:
  pageable     batches are pageable HtoD copies, staged by the driver
  pinned       batches are pinned HtoD copies, each waited for at once
  nonblocking  batches are pinned async HtoD copies, not waited for
plus the pinned allocations of pin_memory=True.
"""
from gpulib import trace, verdict

SCRIPT = "examples/pytorch/loader_copies.py"


def rows(j, **want):
    return [c for c in j["copies"] if all(c.get(k) == v for k, v in want.items())]


def htod(j, memory):
    rs = rows(j, direction="HtoD", memory=memory)
    return sum(c["calls"] for c in rs), sum(c["bytes"] for c in rs)


def finding(j, ident):
    return next((f for f in j.get("findings", []) if f["id"] == ident), {"calls": 0, "bytes": 0})


def run():
    for mode in ("pageable", "pinned", "nonblocking"):
        t, j, _ = trace(["python3", SCRIPT, "--mode", mode], f"loader-{mode}")
        n, b = t["batches"], t["batch_bytes"]
        pg_calls, pg_bytes = htod(j, "pageable")
        pn_calls, pn_bytes = htod(j, "pinned")
        staged = finding(j, "staged_async_copies")
        waited = finding(j, "sync_pinned_copies")
        if mode == "pageable":
            ok = pg_bytes >= n * b and staged["bytes"] >= n * b and pn_bytes < b
        elif mode == "pinned":
            ok = pn_bytes >= n * b and pg_bytes < b and waited["bytes"] >= n * b \
                and j["pinned_allocs"]["calls"] > 0
        else:
            ok = pn_bytes >= n * b and pg_bytes < b and waited["bytes"] < b \
                and j["pinned_allocs"]["calls"] > 0
        verdict(f"pinned-{mode}", ok,
                f"{n} batches of {b} B: HtoD pageable {pg_calls} calls/{pg_bytes} B, "
                f"pinned {pn_calls} calls/{pn_bytes} B; staged {staged['bytes']} B, "
                f"waited-pinned {waited['bytes']} B; pinned allocs {j['pinned_allocs']}")
