# SPDX-License-Identifier: MIT
"""test_multilib.py - the multi-GPU check's pure logic (multilib.py),
without a GPU: the command and environment of a job, each rank's truth
line, the job's step, the verdict and gain comparisons, and the suite
(examples/diagnose/ddp/suite.json) against its scripts.  Run by
test/t/823-check-multi.t:

    python3 test/gpu/test_multilib.py
"""
import ast
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SUITE = os.path.join(ROOT, "examples", "diagnose", "ddp")
sys.path.insert(0, HERE)

import multilib as ml  # noqa: E402

# What torchrun's ranks print, in the order they end, one line prefixed
# as torchrun --tee does; a line of something else between.
STDOUT = """\
[rank1]: truth ms_per_step=31.2500 batch=32 steps=590 rank=1 world=3
truth ms_per_step=30.9000 batch=32 steps=590 rank=0 world=3
epoch done
truth ms_per_step=30.1000 batch=32 steps=590 rank=2 world=3
"""


class Multi(unittest.TestCase):
    def test_world(self):
        self.assertEqual([ml.world_size(n) for n in (0, 1, 2, 5, 8, 16)], [0, 0, 2, 5, 8, 8])
        self.assertIsNone(ml.skip_line(2))
        for n in (0, 1):
            line = ml.skip_line(n)
            self.assertTrue(line.startswith("SKIP multi: "), line)
            self.assertNotIn("\n", line)
            self.assertIn(f"{n} GPU", line)

    def test_command(self):
        cmd = ml.command("/b/gputrace", "/w/job", 4, "examples/diagnose/ddp",
                         ["straggler.py", "--slow-rank", "1"])
        self.assertEqual(cmd, ["/b/gputrace", "record", "-o", "/w/job/run-%r.bin", "--",
                               "torchrun", "--standalone", "--nproc-per-node", "4",
                               "examples/diagnose/ddp/straggler.py", "--slow-rank", "1"])

    def test_environment_keeps_multicast_off(self):
        env = ml.environment({"NCCL_NVLS_ENABLE": "1", "FOO": "bar"})
        self.assertEqual(env["NCCL_NVLS_ENABLE"], "0")
        self.assertEqual(env["TORCH_SYMM_MEM_DISABLE_MULTICAST"], "1")
        self.assertEqual(env["NVSHMEM_DISABLE_NVLS"], "1")
        self.assertEqual(env["FOO"], "bar")

    def test_workloads_keep_multicast_off(self):
        """ddp_common.py sets the same variables, before torch is loaded."""
        src = open(os.path.join(SUITE, "ddp_common.py")).read()
        tree = ast.parse(src)
        found = None
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    getattr(t, "id", "") == "NO_MULTICAST" for t in node.targets):
                found = ast.literal_eval(node.value)
        self.assertEqual(found, ml.NO_MULTICAST)
        self.assertLess(src.index("os.environ.update(NO_MULTICAST)"), src.index("import torch"))
        self.assertNotIn("cuMulticastCreate", src)

    def test_truths(self):
        t = ml.truths(STDOUT)
        self.assertEqual(sorted(t), [0, 1, 2])
        self.assertEqual(t[1]["ms_per_step"], 31.25)
        self.assertEqual(t[2]["steps"], 590)
        self.assertEqual(ml.truth_problems(t, 3), [])
        self.assertEqual(ml.job_step_ms(t), (31.25, 1))
        self.assertTrue(ml.truth_problems(t, 4))
        t[2]["steps"] = 589
        self.assertTrue(any("step counts" in p for p in ml.truth_problems(t, 3)))

    def test_verdict(self):
        expect = {"rank": 1, "class": "data_supply", "cause": "straggler"}
        good = {"rank": 1, "class": "data_supply", "cause": "straggler", "text": "..."}
        self.assertEqual(ml.verdict_problems(expect, good), [])
        self.assertEqual(len(ml.verdict_problems(expect, dict(good, rank=3))), 1)
        self.assertEqual(len(ml.verdict_problems(expect, dict(good, rank=None))), 1)
        self.assertEqual(ml.verdict_problems(expect, None), ["no verdict"])
        none = {"rank": None, "class": "healthy"}
        self.assertEqual(ml.verdict_problems(none, {"rank": None, "class": "healthy",
                                                    "cause": "healthy"}), [])
        self.assertTrue(ml.verdict_problems(none, {"rank": 0, "class": "healthy"}))

    def test_gain(self):
        g = ml.measured_gain(30.0, 10.0)
        self.assertAlmostEqual(g, 2 / 3)
        self.assertTrue(ml.gain_ok(g, 0.40, 0.65))          # within 0.10 above
        self.assertTrue(ml.gain_ok(g, 0.70, 0.80))          # within 0.10 below
        self.assertFalse(ml.gain_ok(g, 0.20, 0.50))
        self.assertFalse(ml.gain_ok(g, 0.80, 0.90))
        self.assertFalse(ml.gain_ok(g, None, None))

    def test_suite(self):
        with open(os.path.join(SUITE, "suite.json")) as f:
            suite = json.load(f)["workloads"]
        names = [w["name"] for w in suite]
        self.assertEqual(len(names), len(set(names)))
        causes = set()
        for w in suite:
            with self.subTest(w=w["name"]):
                self.assertTrue(os.path.isfile(os.path.join(SUITE, w["cmd"][0])))
                self.assertIn("rank", w["expect"])
                self.assertIn("class", w["expect"])
                self.assertGreaterEqual(w.get("min_ranks", 2), 2)
                causes.add(w["expect"].get("cause", w["expect"]["class"]))
                if "twin" in w:
                    self.assertTrue(os.path.isfile(os.path.join(SUITE, w["twin"]["cmd"][0])))
                    self.assertEqual(w["twin"]["cmd"][0], w["cmd"][0], "a twin is the same program")
        self.assertTrue({"straggler", "small_collectives", "exposed_collectives",
                         "healthy"} <= causes)


if __name__ == "__main__":
    unittest.main(verbosity=1)
