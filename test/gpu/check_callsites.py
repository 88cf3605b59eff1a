# SPDX-License-Identifier: MIT
"""check_callsites.py - call stacks on a real GPU.

examples/pytorch/sync_item.py reads its loss with .item() every step (a
host wait, made with the GIL released).  Checks:
  callsite-item   the top wait call site starts with the line of that
                  .item() ("sync_item.py:N in train_step"), and every step's
                  wait is at that line (warm-up steps come from another
                  line of main: a call site of their own); the verdict
                  also says which unwinder and which Python frame reader
                  the dump used (libunwind is not on the H200)
  callsite-cost   time per step with call stacks (the default) and with
                  GPUTRACE_STACK_DEPTH=0: a measurement, always PASS
"""
import re

from gpulib import table, trace, verdict

SCRIPT = "examples/pytorch/sync_item.py"


def how(j):
    notes = " ".join(j.get("notes", []))
    unw = re.search(r"call stacks: (.*?) unwinder", notes)
    py = re.search(r"python frames: ([^;]*)", notes)
    return (unw.group(1) if unw else "none (no call stacks note)",
            py.group(1) if py else "none")


def site_text(c):
    return f"{c['kind']} {c['calls']} calls {c['ns_total'] / 1e6:.2f} ms {c['frames'][:4]}"


def check_item():
    t, j, _ = trace(["python3", SCRIPT, "--steps", "200"], "callsite-item")
    line = t.get("item_line", -1)
    want = f"sync_item.py:{line} in train_step"
    syncs = [c for c in j.get("callsites", []) if c["kind"] == "sync"]
    top = syncs[0] if syncs else None
    at_item = sum(c["calls"] for c in syncs if c["frames"][:1] == [want])
    ok = top is not None and top["frames"][:1] == [want] and at_item == t.get("steps")
    unw, py = how(j)
    copies = [c for c in j.get("callsites", []) if c["kind"] == "pageable_copy"]
    detail = (f"unwinder: {unw}; python frames: {py}; want '{want}' first in the top "
              f"wait call site, and its {t.get('steps')} waits there: {at_item}; "
              f"top: {site_text(top) if top else 'none'}")
    if copies:
        detail += f"; top pageable copy: {site_text(copies[0])}"
    if not ok:
        detail += f"; all: {[site_text(c) for c in j.get('callsites', [])[:6]]}"
    verdict("callsite-item", ok, detail)
    return t, j


def check_cost(t_on):
    t_off, j_off, _ = trace(["python3", SCRIPT, "--steps", "200"], "callsite-off",
                            {"GPUTRACE_STACK_DEPTH": "0"})
    on, off = t_on.get("ms_per_step", 0), t_off.get("ms_per_step", 0)
    verdict("callsite-cost", True,
            f"ms per step with stacks {on:.3f}, without {off:.3f} ({(on - off) * 1000:+.0f} us), "
            f"call sites without stacks: {len(j_off.get('callsites', []))}")
    table.append(("callsite-us-per-step", round((on - off) * 1000), "", ""))


def run():
    t, _ = check_item()
    check_cost(t)
