# SPDX-License-Identifier: MIT
"""ddp_common.py - what the multi-GPU diagnosis workloads share: NVLink
multicast kept off, one process per GPU as torchrun starts them (RANK,
LOCAL_RANK, WORLD_SIZE), the NCCL process group, the training loop with
the step timer of the single-GPU suite (../common.py) and each rank's
"truth" line, and a clean end.

NVLink multicast (NVLS) stays off in every process: NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1 are set here,
before torch or NCCL is loaded, whatever the environment said.
"""
import os
import sys

NO_MULTICAST = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}
os.environ.update(NO_MULTICAST)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

from common import Timer, burn  # noqa: E402,F401


class Job:
    """This process's place in the job: rank, local rank, world size, its
    GPU; the NCCL process group made (torchrun's environment)."""

    def __init__(self):
        self.rank = int(os.environ.get("RANK", "0"))
        self.local = int(os.environ.get("LOCAL_RANK", "0"))
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        torch.cuda.set_device(self.local)
        self.device = torch.device("cuda", self.local)
        dist.init_process_group("nccl", device_id=self.device)
        torch.backends.cuda.matmul.allow_tf32 = True

    def timer(self, warmup, steps):
        return Timer(warmup=warmup, steps=steps)

    def report(self, timer, batch):
        """This rank's truth line: its ms per step, batch, steps, rank."""
        timer.report(batch, extra=f" rank={self.rank} world={self.world}")

    def end(self):
        dist.barrier()
        dist.destroy_process_group()


def mlp(width, layers, out=10):
    """layers x (Linear(width, width), ReLU), then Linear(width, out)."""
    mods = [m for _ in range(layers) for m in (torch.nn.Linear(width, width), torch.nn.ReLU())]
    return torch.nn.Sequential(*mods, torch.nn.Linear(width, out))


def step_range(name="train_step"):
    """An NVTX range around a step (where the steps are, for the report)."""
    return torch.cuda.nvtx.range(name)


def fixed_batches(job, batch, width):
    """The same batch every step, made once on this rank's GPU."""
    x = torch.randn(batch, width, device=job.device)
    y = torch.randint(0, 10, (batch,), device=job.device)
    while True:
        yield x, y


def backward(model, x, y):
    """The loss of a batch and its backward pass (DDP all-reduces)."""
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()


def train(job, model, batches, steps, batch, lr=1e-4, params=None, step=backward):
    """The DDP loop every workload runs: step(model, x, y) on each batch
    inside an NVTX range, SGD, the timer over steps after 10 of warm-up,
    then this rank's truth line and a clean end."""
    opt = torch.optim.SGD(model.parameters() if params is None else params, lr=lr)
    timer = job.timer(warmup=10, steps=steps)
    for x, y in batches:
        if timer.done():
            break
        with step_range():
            step(model, x, y)
            opt.step()
            opt.zero_grad(set_to_none=True)
        timer.step()
    job.report(timer, batch)
    job.end()
