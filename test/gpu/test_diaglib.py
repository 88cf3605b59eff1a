# SPDX-License-Identifier: MIT
"""test_diaglib.py - the diagnosis check's pure logic (diaglib.py) and the
workloads' shared measuring code (examples/diagnose/common.py), without a
GPU: which workloads a set and a list of names pick, the host-function
truth and its check against a report's breakdown (found under whatever
key, skipped where there is none), the share counters' arithmetic, and
the suite (examples/diagnose/suite.json) against its scripts.  Run by
test/t/824-check-diagnosis.t:

    python3 test/gpu/test_diaglib.py
"""
import contextlib
import io
import json
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SUITE = os.path.join(ROOT, "examples", "diagnose")
sys.path.insert(0, HERE)
sys.path.insert(0, SUITE)

import common  # noqa: E402
import diaglib as dl  # noqa: E402

CLASSES = {"data_supply", "cpu_preprocessing", "memory_batch", "communication",
           "kernel_efficiency", "environment", "healthy"}


def load_suite():
    with open(os.path.join(SUITE, "suite.json")) as f:
        return json.load(f)["workloads"]


def spin(n):
    """CPU work of a fixed size (not a fixed time: a loaded machine
    stretches the time, not the CPU time)."""
    x = 0
    for i in range(n):
        x += i * i
    return x


SMALL = [{"name": "a", "cmd": ["python3", "a.py"], "expect": "healthy"},
         {"name": "b", "cmd": ["{cuda}/b"], "expect": "communication"},
         {"name": "c", "set": "frameworks", "cmd": ["python3", "c.py"], "expect": "healthy",
          "twin": {"name": "c2", "cmd": ["{cuda}/c"]}},
         {"name": "d", "set": "frameworks", "cmd": ["python3", "d.py"], "expect": "healthy"}]


class Select(unittest.TestCase):
    def names(self, *args):
        return [w["name"] for w in dl.select(SMALL, *args)]

    def test_sets(self):
        self.assertEqual(self.names("all", None), ["a", "b", "c", "d"])
        self.assertEqual(self.names(None, ""), ["a", "b", "c", "d"])
        self.assertEqual(self.names("core", None), ["a", "b"])
        self.assertEqual(self.names("old", None), ["a", "b"])
        self.assertEqual(self.names("frameworks", None), ["c", "d"])
        self.assertEqual(self.names("NEW", None), ["c", "d"])

    def test_only(self):
        self.assertEqual(self.names("all", "d, a"), ["a", "d"])
        self.assertEqual(self.names("frameworks", "d"), ["d"])
        with self.assertRaisesRegex(ValueError, "GT_DIAG_ONLY.*: a"):
            dl.select(SMALL, "frameworks", "a,d")
        with self.assertRaisesRegex(ValueError, "GT_DIAG_SET='bogus'"):
            dl.select(SMALL, "bogus", None)

    def test_cuda_built_only_when_needed(self):
        self.assertTrue(dl.needs_cuda(dl.select(SMALL, "core", None)))
        self.assertFalse(dl.needs_cuda(dl.select(SMALL, "core", "a")))
        self.assertTrue(dl.needs_cuda(dl.select(SMALL, "frameworks", "c")))
        self.assertFalse(dl.needs_cuda(dl.select(SMALL, "frameworks", "d")))
        suite = load_suite()
        self.assertTrue(dl.needs_cuda(dl.select(suite, "core", None)))
        self.assertFalse(dl.needs_cuda(dl.select(suite, "frameworks", None)))


REPORT = {
    "kernels": [{"name": "bookkeeping_kernel", "share": 0.6}],
    "idle": [{"cause": "cpu_preprocessing", "share": 0.4}],
    "diagnosis": {"host": {"span_ns": 5, "outside_cpu": 3}},
    "host_samples": {
        "count": 812,
        "causes": [{"cause": "outside_cpu", "top_functions": [
            {"function": "bookkeeping (common.py:52)", "self_share": 0.05,
             "total_share": 0.71},
            {"function": "json.encoder.JSONEncoder.encode", "self_share": 0.40,
             "total_share": 0.40}]}],
        "workers": {"functions": [{"qualname": "augment", "total": 83.0, "self": 2.0}]},
    },
}


class HostCheck(unittest.TestCase):
    def test_truth_line(self):
        out = ("warming up\ntruth ms_per_step=7.2000 batch=32 steps=40 logged=3 "
               "host_fn=Augment.__call__ host_share=0.812\n")
        self.assertEqual(dl.host_truth(out), {"host_fn": "Augment.__call__", "host_share": 0.812})
        self.assertEqual(dl.host_truth("truth ms_per_step=1.0 batch=1 steps=3\n"), {})
        self.assertEqual(dl.host_truth("host_fn=x host_share=0.5\n"), {})

    def test_rows_found_under_any_host_key(self):
        rows = dl.host_rows(REPORT)
        names = sorted(n for _, n, _ in rows)
        self.assertEqual(names, ["augment", "bookkeeping (common.py:52)",
                                 "json.encoder.JSONEncoder.encode"])
        by = {n: (p, s) for p, n, s in rows}
        self.assertAlmostEqual(by["bookkeeping (common.py:52)"][1], 0.71)   # total, not self
        self.assertAlmostEqual(by["augment"][1], 0.83)                      # percent
        self.assertEqual(by["augment"][0], "/host_samples/workers/functions")
        # a kernel's row is not a host row; an integer count is not a table
        self.assertEqual(dl.host_rows({"kernels": REPORT["kernels"], "host_samples": 3}), [])

    def test_names(self):
        for name in ("bookkeeping", "bookkeeping (common.py:52)", "common.bookkeeping",
                     "common.py:bookkeeping", "  bookkeeping  [worker]"):
            self.assertTrue(dl.names_function(name, "bookkeeping"), name)
        for name in ("bookkeeping_kernel", "my_bookkeeping", "bookkeeping2 (x.py:1)"):
            self.assertFalse(dl.names_function(name, "bookkeeping"), name)
        self.assertTrue(dl.names_function("Augment.__call__ (a.py:3)", "Augment.__call__"))

    def test_check(self):
        status, detail = dl.host_check({"host_fn": "bookkeeping", "host_share": 0.65}, REPORT)
        self.assertEqual(status, "PASS", detail)
        self.assertIn("0.71", detail)
        status, detail = dl.host_check({"host_fn": "bookkeeping", "host_share": 0.5}, REPORT)
        self.assertEqual(status, "FAIL", detail)
        status, detail = dl.host_check({"host_fn": "augment", "host_share": 0.78}, REPORT)
        self.assertEqual(status, "PASS", detail)
        status, detail = dl.host_check({"host_fn": "token_metrics", "host_share": 0.4}, REPORT)
        self.assertEqual(status, "FAIL", detail)
        self.assertIn("not named", detail)
        status, detail = dl.host_check({"host_fn": "burn", "host_share": 0.8},
                                       {"kernels": [], "idle": []})
        self.assertEqual(status, "SKIP", detail)
        self.assertNotIn("\n", detail)


class Shares(unittest.TestCase):
    def test_host_share(self):
        share = common.HostShare(spin)
        self.assertEqual(share.name, "spin")
        share(300000)                       # before the start: not counted
        share.start()
        for _ in range(4):
            share(200000)                   # in the function
            spin(200000)                    # elsewhere in the thread
            with share.waiting():
                spin(400000)                # a readback's wait: left out
        m = dl.host_truth("truth ms_per_step=1 batch=1 steps=1" + share.text())
        self.assertEqual(m["host_fn"], "spin")
        self.assertAlmostEqual(m["host_share"], 0.5, delta=0.12)

    def test_worker_share(self):
        """Two workers, each with its own CPU clock (a fake one here): the
        share is their time in the function over their time in all, from
        each one's last count before the start to its last count."""
        clocks, cur = [0.0, 0.0], [0]

        def work(d):
            clocks[cur[0]] += d

        fake = type("Clock", (), {"process_time": staticmethod(lambda: clocks[cur[0]])})
        real, common.time = common.time, fake
        try:
            share = common.WorkerShare(work, 2)
            share._worker = lambda: cur[0]
            share(1.0)                          # worker 0
            work(1.0)                           # worker 0, elsewhere
            cur[0] = 1
            share(2.0)
            share.start()
            cur[0] = 0
            work(0.5)
            share(1.0)                          # worker 0: 1 of 2.5
            cur[0] = 1
            share(3.0)
            work(1.0)
            share(1.0)                          # worker 1: 4 of 5
            text = share.text()
        finally:
            common.time = real
        self.assertEqual(text, " host_fn=Shares.test_worker_share.<locals>.work host_share=0.667")

    def test_worker_share_real_clock(self):
        share = common.WorkerShare(spin, 1)
        share._worker = lambda: 0
        share(300000)
        share.start()
        for _ in range(3):
            spin(100000)
            share(300000)                   # 3 calls of 300k, 3 spins of 100k
        m = dl.host_truth("truth ms_per_step=1 batch=1 steps=1" + share.text())
        self.assertAlmostEqual(m["host_share"], 0.75, delta=0.12)

    def test_timer_reads_shares(self):
        share = common.HostShare(spin)
        timer = common.Timer(warmup=1, steps=3, sync=lambda: None, shares=[share])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            while not timer.done():
                share(50000)
                timer.step()
            timer.report(8, " x=1")
        line = out.getvalue()
        self.assertRegex(line, r"^truth ms_per_step=[\d.]+ batch=8 steps=2 x=1 host_fn=spin "
                               r"host_share=[\d.]+\n$")
        self.assertGreater(dl.host_truth(line)["host_share"], 0.5)

    def test_bookkeeping(self):
        log = {}
        t = time.perf_counter()
        common.bookkeeping(log, {"loss": 2.0, "step": 1}, 5)
        common.bookkeeping(log, {"loss": 4.0, "step": 2}, 0)
        self.assertGreaterEqual(time.perf_counter() - t, 0.005)
        self.assertEqual(log["n"], 2)
        self.assertAlmostEqual(log["means"]["loss"], 3.0)
        self.assertLessEqual(len(log["lines"]), 256)
        self.assertEqual(json.loads(log["lines"][-1])["record"]["step"], 2)


class Suite(unittest.TestCase):
    def test_entries(self):
        suite = load_suite()
        names = [w["name"] for w in suite]
        self.assertEqual(len(names), len(set(names)), "workload names are unique")
        for w in suite:
            self.assertIn(w["expect"], CLASSES, w["name"])
            self.assertIn(dl.workload_set(w), ("core", "frameworks"), w["name"])
            if "twin" in w:
                self.assertIn(w.get("gain"), ("step", "per_sample"), w["name"])
                self.assertTrue(w["twin"]["name"] and w["twin"]["cmd"], w["name"])

    def test_scripts_exist(self):
        for w in load_suite():
            for cmd in (w["cmd"], (w.get("twin") or {}).get("cmd", [])):
                for c in cmd:
                    if c.endswith(".py"):
                        self.assertTrue(os.path.isfile(os.path.join(SUITE, c)), c)

    def test_same_name_same_run(self):
        """A run is traced once per name: every use of a name must be the
        same command in the same environment."""
        runs = {}
        for w in load_suite():
            for r in (w, w.get("twin")):
                if r:
                    key = (tuple(r["cmd"]), tuple(sorted((r.get("env") or {}).items())))
                    self.assertEqual(runs.setdefault(r["name"], key), key, r["name"])

    def test_frameworks_cover_every_class(self):
        fw = [w for w in load_suite() if dl.workload_set(w) == "frameworks"]
        self.assertEqual({w["expect"] for w in fw}, CLASSES)
        self.assertGreaterEqual(sum(1 for w in fw if "twin" in w), 8)
        for w in fw:
            self.assertTrue(w["expect"] == "healthy" or "twin" in w, w["name"])

    def test_scripts_print_truth(self):
        """Every workload times its steps with common.Timer and reports."""
        scripts = {c for w in load_suite() for c in w["cmd"] if c.endswith(".py")}
        for s in sorted(scripts):
            with open(os.path.join(SUITE, s)) as f:
                src = f.read()
            self.assertTrue(src.startswith("# SPDX-License-Identifier: MIT\n"), s)
            self.assertIn("Timer(", src, s)
            self.assertIn(".report(", src, s)


if __name__ == "__main__":
    r = unittest.main(exit=False, verbosity=1).result
    print("OK" if r.wasSuccessful() else "FAILED")
    sys.exit(0 if r.wasSuccessful() else 1)
