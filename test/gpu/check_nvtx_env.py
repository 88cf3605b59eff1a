# SPDX-License-Identifier: MIT
"""check_nvtx_env.py - NVTX ranges, the environment and the sampler on the
real GPU (run by check.py).

  nvtx-ranges   examples/pytorch/nvtx_steps.py under LD_PRELOAD alone:
                "step" and nested "forward" ranges (torch.cuda.nvtx) have
                exactly the calls the program made, step holds forward, the
                steps launched kernels, marks are counted
  nvtx-emit     torch.autograd.profiler.emit_nvtx ranges arrive, named by
                operator ("aten::...", the per-call suffixes cut off)
  env-device    the device is an H200 with 132 SMs, driver and runtime
                versions known, PCIe generation and width known, NVML ok
  env-samples   samples were taken every GPUTRACE_SAMPLE_MS with
                nvidia-smi utilization values, some above 0, clocks seen,
                and this process's CPU use measured
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpulib import table, trace, verdict  # noqa: E402

SCRIPT = "examples/pytorch/nvtx_steps.py"


def rows(j):
    return {(r["name"], r.get("domain", "")): r for r in j.get("nvtx", [])}


def check_ranges(t, j):
    r = rows(j)
    step, fwd = r.get(("step", "")), r.get(("forward", ""))
    marks = {m["name"]: m["calls"] for m in j.get("nvtx_info", {}).get("marks", [])}
    ok = (step is not None and fwd is not None and step["calls"] == t.get("steps")
          and fwd["calls"] == t.get("forward") and step["kernels"] > 0
          and step["wall_ns_total"] > fwd["wall_ns_total"]
          and step["unclosed"] == 0 and marks.get("checkpoint") == t.get("marks"))
    detail = (f"step {step and step['calls']}/{t.get('steps')} calls, "
              f"{step and step['kernels']} kernels inside; forward "
              f"{fwd and fwd['calls']}/{t.get('forward')}; checkpoint marks "
              f"{marks.get('checkpoint')}/{t.get('marks')}; "
              f"{len(r)} range names")
    verdict("nvtx-ranges", ok, detail)
    aten = [k for k in r if k[0].startswith("aten::")]
    suffixed = [k for k in aten if ", seq" in k[0]]
    verdict("nvtx-emit", len(aten) >= 3 and not suffixed,
            f"{len(aten)} aten:: range names (e.g. {sorted(aten)[:3]}), "
            f"{len(suffixed)} with a per-call suffix")


def check_env(j):
    e = j.get("env", {})
    ok = ("H200" in (e.get("device") or "") and e.get("sm_count") == 132
          and (e.get("driver_version") or 0) >= 12000 and e.get("driver_release")
          and (e.get("runtime_version") or 0) >= 12000
          and (e.get("pcie_gen") or 0) >= 1 and (e.get("pcie_width") or 0) >= 1
          and e.get("nvml") == "ok")
    verdict("env-device", ok,
            f"device {e.get('device')!r}, {e.get('sm_count')} SMs, driver "
            f"{e.get('driver_release')} ({e.get('driver_version')}), runtime "
            f"{e.get('runtime_version')}, CUPTI {e.get('cupti_version')}, PCIe gen"
            f"{e.get('pcie_gen')} x{e.get('pcie_width')} (max gen"
            f"{e.get('pcie_gen_max')} x{e.get('pcie_width_max')}), NVLink "
            f"{e.get('nvlink_active')}, ECC {e.get('ecc')}, NVML {e.get('nvml')}")


def check_samples(j):
    e = j.get("env", {})
    util = j.get("gpu", {}).get("smi_util_mean")
    cpu = e.get("cpu", {})
    ok = (e.get("samples", 0) >= 10 and e.get("gpu_samples", 0) >= 10
          and util is not None and (e.get("util_max") or 0) > 0
          and (e.get("sm_mhz_max") or 0) > 0
          and cpu.get("process_cores") is not None)
    verdict("env-samples", ok,
            f"{e.get('samples')} host / {e.get('gpu_samples')} GPU samples every "
            f"{e.get('sample_ms')} ms; utilization mean {util} max "
            f"{e.get('util_max')}; SM clock {e.get('sm_mhz_min')}-"
            f"{e.get('sm_mhz_max')} MHz; throttling {e.get('throttle_reasons_seen')}; "
            f"other processes {len(e.get('other_processes', []))}; process "
            f"{cpu.get('process_cores')} cores")
    table.append(("nvtx-env-samples", e.get("gpu_samples"), j.get("events"),
                  j.get("dropped")))


def run():
    t, j, _ = trace(["python3", SCRIPT, "--steps", "30", "--emit-steps", "3",
                     "--min-seconds", "3"], "nvtx-steps",
                    {"GPUTRACE_SAMPLE_MS": "50", "NVTX_INJECTION64_PATH": ""})
    check_ranges(t, j)
    check_env(j)
    check_samples(j)
