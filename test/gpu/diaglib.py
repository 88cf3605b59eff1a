# SPDX-License-Identifier: MIT
"""diaglib.py - the pure logic of the diagnosis suite's check
(check_diagnosis.py), apart so that it is tested without a GPU
(test/gpu/test_diaglib.py, run by test/t/824-check-diagnosis.t): which
workloads run (GT_DIAG_SET, GT_DIAG_ONLY), whether the CUDA programs must
be built, and the host-function check (what the host sampler names).

The host-function check: a workload that spends its host time in one
known function prints `host_fn=<qualname> host_share=<0..1>
host_of=thread|workers` on its truth line (examples/diagnose/common.py
measures it): the function's share of the CPU time of the thread that ran
it, or of the DataLoader workers' CPU time.  The report's JSON gives the
same quantity: host_samples.threads (each thread's profile over the steady
steps) and host_samples.workers_profile (the workers' together), each
function's share of that thread's (the workers') sampled time.  The report
must name the function in the profile the truth is of (a thread's: the
thread whose samples ran it most) with a total share within NEAR_SHARE of
the truth: the truth counts everything the function calls.  A truth line
without host_of (recorded before it was written) is of the workers when
their profile names the function, else of a thread, and the detail says
it was inferred.  A report without these profiles: the check is skipped
and says so.  Imports nothing of the GPU checks: importing gpulib makes
folders.
"""
import re

# GT_DIAG_SET values: the suite's "set" of each workload ("core" when it
# has none); "old" and "new" are other names for the two.
SETS = {"core": "core", "old": "core", "frameworks": "frameworks", "new": "frameworks",
        "all": None}
NEAR_SHARE = 0.10


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
    """host_fn (a qualname), host_share and host_of (when given) from a
    program's truth line, or {}."""
    for line in stdout.splitlines():
        if not line.startswith("truth "):
            continue
        fn = re.search(r"\bhost_fn=(\S+)", line)
        share = re.search(r"\bhost_share=([-\d.]+)", line)
        of = re.search(r"\bhost_of=(\w+)", line)
        if fn and share:
            out = {"host_fn": fn.group(1), "host_share": float(share.group(1))}
            if of:
                out["host_of"] = of.group(1)
            return out
    return {}


def names_function(name, fn):
    """Whether a report's function name is the qualname fn: the same, or
    with where it is ("augment (image_aug.py:60)", "image_aug.py:augment"),
    or after its module ("common.bookkeeping")."""
    return any(t == fn or t.endswith("." + fn) for t in re.findall(r"[\w.<>]+", name))


def _hit(profile, fn):
    """The row of profile (a thread's or the workers') naming fn, or None."""
    rows = [r for r in (profile or {}).get("functions") or []
            if isinstance(r, dict) and names_function(str(r.get("name", "")), fn)]
    return max(rows, key=lambda r: r.get("total_ns", 0)) if rows else None


def _profile(hs, of, fn):
    """(where, its row naming fn or None, the top rows) in the profile of
    `of`: the workers', or the thread's that ran fn most."""
    if of == "workers":
        p = hs.get("workers_profile")
        return "the workers", _hit(p, fn), (p or {}).get("functions") or []
    threads = [t for t in hs.get("threads") or [] if isinstance(t, dict)]
    ran = [(t, _hit(t, fn)) for t in threads]
    ran = [(t, r) for t, r in ran if r]
    if ran:
        t, r = max(ran, key=lambda x: x[1].get("total_ns", 0))
        return f"thread {t.get('tid')}", r, t.get("functions") or []
    top = threads[0] if threads else {}
    return f"thread {top.get('tid', '?')}", None, top.get("functions") or []


def _unlisted(hs, of, where):
    """The most total share a function left out of the profile's list can
    have (the report's bound), or None when the report does not say."""
    if of == "workers":
        p = hs.get("workers_profile")
    else:
        p = next((t for t in hs.get("threads") or []
                  if isinstance(t, dict) and where == f"thread {t.get('tid')}"), None)
    v = (p or {}).get("unlisted_total_share_max")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def host_check(truth, j):
    """("PASS"|"FAIL"|"SKIP", detail) for a run's truth (host_truth) and
    the report's JSON."""
    fn, share = truth["host_fn"], truth["host_share"]
    hs = j.get("host_samples") if isinstance(j, dict) else None
    if not isinstance(hs, dict) or "threads" not in hs:
        return "SKIP", (f"{fn} {share:.2f} of the host's CPU time; the report has no "
                        f"profile of host samples by thread")
    of, how = truth.get("host_of"), ""
    if of not in ("thread", "workers"):
        of = "workers" if _hit(hs.get("workers_profile"), fn) else "thread"
        how = ", inferred"
    whose = "the workers'" if of == "workers" else "its thread's"
    where, row, rows = _profile(hs, of, fn)
    if row is None and isinstance(rows, list) and where:
        bound = _unlisted(hs, of, where)
        if bound is not None and share <= bound + NEAR_SHARE:
            return "PASS", (f"{fn}: {share:.2f} of {whose} CPU time{how}; not named in "
                            f"the profile of {where}, which names every function above "
                            f"{bound:.2f} (no sample: 0)")
    if row is None:
        top = ", ".join(f"{r.get('name')} {r.get('total_share', 0):.2f}"
                        for r in sorted(rows, key=lambda r: -r.get("total_share", 0))[:3])
        return "FAIL", (f"{fn} ({share:.2f} of {whose} CPU time{how}) not named in the "
                        f"profile of {where}; its top: {top or 'none'}")
    got = row.get("total_share", 0)
    ok = abs(got - share) <= NEAR_SHARE
    return ("PASS" if ok else "FAIL"), (
        f"{fn}: {share:.2f} of {whose} CPU time{how}, the report {got:.2f} "
        f"(the profile of {where}, {row.get('name')})")
