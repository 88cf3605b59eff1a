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


def fn(name, total, ns=None):
    return {"name": name, "self_share": total / 2, "total_share": total,
            "total_ns": ns if ns is not None else int(total * 1000)}


REPORT = {
    "kernels": [{"name": "bookkeeping", "share": 0.6}],
    "host_samples": {
        # a cause's shares are of the samples in that cause: not the truth's
        "causes": [{"cause": "cpu_preprocessing", "functions": [
            fn("bookkeeping (common.py:52)", 0.95), fn("token_metrics (m.py:3)", 0.40)]}],
        "threads": [
            {"tid": 11, "samples": 300, "functions": [
                fn("main (b.py:9)", 1.0), fn("bookkeeping (common.py:52)", 0.71, 700),
                fn("JSONEncoder.encode (encoder.py:200)", 0.40)]},
            {"tid": 12, "samples": 90, "unlisted_total_share_max": 0.02, "functions": [
                fn("bookkeeping (common.py:52)", 0.20, 200), fn("pin_memory (p.py:5)", 0.5)]}],
        "workers_profile": {"processes": 2, "functions": [
            fn("Image.convert (Image.py:1)", 0.6), fn("augment (image_aug.py:61)", 0.83)]},
    },
}


class HostCheck(unittest.TestCase):
    def test_truth_line(self):
        out = ("warming up\ntruth ms_per_step=7.2000 batch=32 steps=40 logged=3 "
               "host_fn=Augment.__call__ host_share=0.812 host_of=workers\n")
        self.assertEqual(dl.host_truth(out), {"host_fn": "Augment.__call__", "host_share": 0.812,
                                              "host_of": "workers"})
        self.assertEqual(dl.host_truth("truth ms_per_step=1 batch=1 steps=3 host_fn=f "
                                       "host_share=0.5\n"), {"host_fn": "f", "host_share": 0.5})
        self.assertEqual(dl.host_truth("truth ms_per_step=1.0 batch=1 steps=3\n"), {})
        self.assertEqual(dl.host_truth("host_fn=x host_share=0.5\n"), {})

    def test_names(self):
        for name in ("bookkeeping", "bookkeeping (common.py:52)", "common.bookkeeping",
                     "common.py:bookkeeping", "  bookkeeping  [worker]"):
            self.assertTrue(dl.names_function(name, "bookkeeping"), name)
        for name in ("bookkeeping_kernel", "my_bookkeeping", "bookkeeping2 (x.py:1)"):
            self.assertFalse(dl.names_function(name, "bookkeeping"), name)
        self.assertTrue(dl.names_function("Augment.__call__ (a.py:3)", "Augment.__call__"))

    def check(self, name, share, of=None):
        truth = {"host_fn": name, "host_share": share}
        if of:
            truth["host_of"] = of
        return dl.host_check(truth, REPORT)

    def test_thread_share(self):
        # the thread that ran it most (11, not 12), its total share
        status, detail = self.check("bookkeeping", 0.65, "thread")
        self.assertEqual(status, "PASS", detail)
        self.assertIn("0.71", detail)
        self.assertIn("thread 11", detail)
        # the cause's 0.95 is not compared: 0.9 is far from the thread's 0.71
        status, detail = self.check("bookkeeping", 0.9, "thread")
        self.assertEqual(status, "FAIL", detail)
        status, detail = self.check("token_metrics", 0.4, "thread")
        self.assertEqual(status, "FAIL", detail)
        self.assertIn("not named", detail)

    def test_bound_of_the_unlisted(self):
        # thread 12 lists every function above 0.02: a truth of 0.05 is near
        report = {"host_samples": {"threads": [REPORT["host_samples"]["threads"][1]]}}
        ok = dl.host_check({"host_fn": "token_metrics", "host_share": 0.05, "host_of": "thread"},
                           report)
        self.assertEqual(ok[0], "PASS", ok[1])
        self.assertIn("above 0.02", ok[1])
        far = dl.host_check({"host_fn": "token_metrics", "host_share": 0.2, "host_of": "thread"},
                            report)
        self.assertEqual(far[0], "FAIL", far[1])
        # no bound given (thread 11): not named is a failure
        self.assertEqual(self.check("token_metrics", 0.01, "thread")[0], "FAIL")

    def test_workers_share(self):
        status, detail = self.check("augment", 0.78, "workers")
        self.assertEqual(status, "PASS", detail)
        self.assertIn("workers", detail)
        # a workers' truth is not looked for in the threads, nor the reverse
        self.assertEqual(self.check("bookkeeping", 0.71, "workers")[0], "FAIL")
        self.assertEqual(self.check("augment", 0.83, "thread")[0], "FAIL")

    def test_inferred(self):
        status, detail = self.check("augment", 0.8)
        self.assertEqual(status, "PASS", detail)
        self.assertIn("inferred", detail)
        status, detail = self.check("bookkeeping", 0.7)
        self.assertEqual(status, "PASS", detail)
        self.assertIn("thread 11", detail)

    def test_skip_without_profiles(self):
        for j in ({"kernels": [], "idle": []}, {"host_samples": None},
                  {"host_samples": {"causes": REPORT["host_samples"]["causes"]}}):
            status, detail = dl.host_check({"host_fn": "burn", "host_share": 0.8}, j)
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
        self.assertEqual(text, " host_fn=Shares.test_worker_share.<locals>.work host_share=0.667"
                               " host_of=workers")

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
                               r"host_share=[\d.]+ host_of=thread\n$")
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
