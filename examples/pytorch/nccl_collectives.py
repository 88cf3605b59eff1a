# SPDX-License-Identifier: MIT
"""nccl_collectives.py - known NCCL collectives through torch.distributed,
for checking what gputrace records of them (test/gpu/check_nccl.py).

One process per GPU (--world, default 1), started with
multiprocessing's spawn (no torchrun needed); a single process runs in
place.  Each runs --iters rounds of:

  all_reduce              N float32                -> ncclAllReduce
  broadcast from rank 0   N/2 float32              -> ncclBroadcast/ncclBcast
  all_gather_into_tensor  N/4 float32 per rank     -> ncclAllGather
  reduce_scatter_tensor   N/4 float32 per rank out -> ncclReduceScatter
  send to rank+1 and receive from rank-1, batched (2 ranks or more)
                          P float32                -> ncclSend, ncclRecv

then one all_reduce of S float32 on a new group of all ranks (torch makes
its communicator with ncclCommSplit where it can), and prints "truth" lines with the calls and bytes gputrace must show in
each rank's dump (bytes: count x 4, the count NCCL is given: per rank for
all_gather and reduce_scatter).

  LD_PRELOAD=build/libgputrace.so python3 nccl_collectives.py --world 2
"""
import argparse
import os
import socket
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rounds(rank, world, args):
    dev = torch.device("cuda", rank)
    n, p = args.numel, args.p2p_numel
    x = torch.ones(n, device=dev)
    y = torch.full((n // 2,), float(rank), device=dev)
    part = torch.ones(n // 4, device=dev)
    gathered = torch.empty(world * (n // 4), device=dev)
    scattered = torch.empty(n // 4, device=dev)
    whole = torch.ones(world * (n // 4), device=dev)
    out, inp = torch.ones(p, device=dev), torch.empty(p, device=dev)
    for _ in range(args.iters):
        dist.all_reduce(x)
        dist.broadcast(y, src=0)
        dist.all_gather_into_tensor(gathered, part)
        dist.reduce_scatter_tensor(scattered, whole)
        if world > 1:
            ops = [dist.P2POp(dist.isend, out, (rank + 1) % world),
                   dist.P2POp(dist.irecv, inp, (rank - 1) % world)]
            for req in dist.batch_isend_irecv(ops):
                req.wait()
    sub = dist.new_group(list(range(world)))
    dist.all_reduce(torch.ones(args.split_numel, device=dev), group=sub)
    torch.cuda.synchronize(dev)
    assert x[0].item() == world ** args.iters, "all_reduce gave a wrong sum"
    assert y[0].item() == 0.0, "broadcast gave a wrong value"


def truth(world, args):
    k, n, p = args.iters, args.numel, args.p2p_numel
    vals = {"world": world, "iters": k,
            "allreduce_calls": k + 1, "allreduce_bytes": (k * n + args.split_numel) * 4,
            "broadcast_calls": k, "broadcast_bytes": k * (n // 2) * 4,
            "allgather_calls": k, "allgather_bytes": k * (n // 4) * 4,
            "reducescatter_calls": k, "reducescatter_bytes": k * (n // 4) * 4,
            "send_calls": k if world > 1 else 0, "send_bytes": k * p * 4 if world > 1 else 0,
            "recv_calls": k if world > 1 else 0, "recv_bytes": k * p * 4 if world > 1 else 0}
    return "truth " + " ".join(f"{key}={v}" for key, v in vals.items())


def worker(rank, world, args):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=args.init, rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    try:
        rounds(rank, world, args)
        print(f"rank {rank}: done, NCCL {torch.cuda.nccl.version()}", flush=True)
    finally:
        dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--world", type=int, default=1)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--numel", type=int, default=1 << 20)
    ap.add_argument("--p2p-numel", type=int, default=1 << 16)
    ap.add_argument("--split-numel", type=int, default=4096)
    args = ap.parse_args()
    world = min(args.world, torch.cuda.device_count())
    fd, path = tempfile.mkstemp(prefix="nccl-init-")
    os.close(fd)
    os.unlink(path)                     # the file store makes it anew
    args.init = f"file://{path}"
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(free_port()))
    print(truth(world, args), flush=True)
    if world == 1:
        worker(0, 1, args)
    else:
        mp.spawn(worker, args=(world, args), nprocs=world, join=True)


if __name__ == "__main__":
    main()
