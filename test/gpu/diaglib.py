# SPDX-License-Identifier: MIT
"""diaglib.py - the pure logic of the diagnosis suite's check
(check_diagnosis.py), apart so that it is tested without a GPU
(test/gpu/test_diaglib.py, run by test/t/824-check-diagnosis.t): which
workloads run (GT_DIAG_SET, GT_DIAG_ONLY), whether the CUDA programs must
be built, and the host-function check (what the host sampler names).

The host-function check: a workload that spends its host time in one
known function prints `host_fn=<qualname> host_share=<0..1>` on its truth
line (examples/diagnose/common.py measures it).  Where the report's JSON
breaks the host's sampled time down by function, the report must name
that function with a share within NEAR_SHARE of the truth.  The breakdown's
key is looked for, not assumed: any list of rows with a function name and
a share under a key that speaks of the host, samples, functions or stacks.
A row's inclusive share (total) is preferred to its own (self): the truth
counts everything the function calls.  No such list: the check is skipped
and says so.  Imports nothing of the GPU checks: importing gpulib makes
folders.
"""
import re

# GT_DIAG_SET values: the suite's "set" of each workload ("core" when it
# has none); "old" and "new" are other names for the two.
SETS = {"core": "core", "old": "core", "frameworks": "frameworks", "new": "frameworks",
        "all": None}
NEAR_SHARE = 0.10
NAME_KEYS = ("function", "qualname", "func", "name", "frame", "symbol")
SHARE_KEYS = ("total_share", "total", "share", "self_share", "self")
PATH_HINTS = ("host", "sampl", "function", "stack", "folded", "flame")
MAX_DEPTH = 8


def workload_set(w):
    return w.get("set", "core")


def select(suite, set_name, only):
    """The workloads to run: those of the set (GT_DIAG_SET, "all" for
    every one), then those named in `only` (GT_DIAG_ONLY, comma-separated;
    empty: all of the set).  Unknown set, or names that match nothing:
    ValueError."""
    key = (set_name or "all").strip().lower()
    if key not in SETS:
        raise ValueError(f"GT_DIAG_SET={set_name!r}: one of {', '.join(SETS)}")
    chosen = [w for w in suite if SETS[key] is None or workload_set(w) == SETS[key]]
    names = [n.strip() for n in (only or "").split(",") if n.strip()]
    if not names:
        return chosen
    unknown = [n for n in names if n not in {w["name"] for w in chosen}]
    if unknown:
        raise ValueError(f"GT_DIAG_ONLY names no workload of set {key}: {', '.join(unknown)}")
    return [w for w in chosen if w["name"] in names]


def needs_cuda(workloads):
    """Whether any of these (or their twins) runs a built CUDA program."""
    for w in workloads:
        for cmd in (w["cmd"], (w.get("twin") or {}).get("cmd", [])):
            if any("{cuda}" in c for c in cmd):
                return True
    return False


def host_truth(stdout):
    """host_fn (a qualname) and host_share from a program's truth line, or {}."""
    for line in stdout.splitlines():
        if not line.startswith("truth "):
            continue
        fn = re.search(r"\bhost_fn=(\S+)", line)
        share = re.search(r"\bhost_share=([-\d.]+)", line)
        if fn and share:
            return {"host_fn": fn.group(1), "host_share": float(share.group(1))}
    return {}


def _share(row):
    for k in SHARE_KEYS:
        v = row.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v / 100.0 if v > 1.0 + 1e-9 else float(v)
    return None


def _name(row):
    for k in NAME_KEYS:
        v = row.get(k)
        if isinstance(v, str) and v:
            return v
    return None


def _rows(value):
    """(name, share) of each row, if value is a list of function rows."""
    if not isinstance(value, list) or not value:
        return None
    out = []
    for row in value:
        if not isinstance(row, dict):
            return None
        name, share = _name(row), _share(row)
        if name is None or share is None:
            return None
        out.append((name, share))
    return out


def host_rows(j, path="", depth=0):
    """Every function row of a host breakdown in the report's JSON:
    (path of its list, function, share)."""
    found = []
    if depth > MAX_DEPTH:
        return found
    items = j.items() if isinstance(j, dict) else enumerate(j) if isinstance(j, list) else ()
    for k, v in items:
        p = f"{path}/{k}"
        rows = _rows(v) if isinstance(k, str) else None
        if rows is not None and any(h in p.lower() for h in PATH_HINTS):
            found += [(p, name, share) for name, share in rows]
        elif isinstance(v, (dict, list)):
            found += host_rows(v, p, depth + 1)
    return found


def names_function(name, fn):
    """Whether a report's function name is the qualname fn: the same, or
    with where it is ("augment (image_aug.py:60)", "image_aug.py:augment"),
    or after its module ("common.bookkeeping")."""
    return any(t == fn or t.endswith("." + fn) for t in re.findall(r"[\w.<>]+", name))


def host_check(truth, j):
    """("PASS"|"FAIL"|"SKIP", detail) for a run's truth (host_truth) and
    the report's JSON."""
    fn, share = truth["host_fn"], truth["host_share"]
    rows = host_rows(j)
    if not rows:
        return "SKIP", (f"{fn} {share:.2f} of the host's CPU time; the report has no "
                        f"breakdown of host samples by function")
    hits = [r for r in rows if names_function(r[1], fn)]
    if not hits:
        top = ", ".join(f"{n} {s:.2f}" for _, n, s in sorted(rows, key=lambda r: -r[2])[:3])
        return "FAIL", f"{fn} ({share:.2f} of the host's CPU time) not named; the report's top: {top}"
    best = min(hits, key=lambda r: abs(r[2] - share))
    ok = abs(best[2] - share) <= NEAR_SHARE
    return ("PASS" if ok else "FAIL"), (
        f"{fn}: {share:.2f} of the host's CPU time, the report {best[2]:.2f} ({best[0]}; "
        f"{len(hits)} row{'s' if len(hits) != 1 else ''} name it)")
