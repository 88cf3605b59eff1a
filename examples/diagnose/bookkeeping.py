# SPDX-License-Identifier: MIT
"""bookkeeping.py - a transformer encoder (torch.nn) trained on batches
already on the GPU, no DataLoader.  Every step the loop reads its loss,
accuracy and gradient norm with .item() and does Python bookkeeping with
them: running means per key and a JSON log line (common.bookkeeping,
--host-ms of it).

Expected: communication (each .item() waits for the step; the GPU idles
through the bookkeeping and the next step's launches).  Fixed twin:
--no-sync (the values stay on the GPU, stacked and read every --every
steps; the same bookkeeping still runs every step on what the host has,
overlapping the next step's GPU work).

The truth line names the bookkeeping function and its share of the
training thread's CPU time, the readbacks' own waits left out.
"""
import argparse

import torch

from common import HostShare, Timer, bookkeeping


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-sync", action="store_true")
    ap.add_argument("--every", type=int, default=100, help="with --no-sync: read every N steps")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--host-ms", type=float, default=2.0)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    layer = torch.nn.TransformerEncoderLayer(args.dim, args.dim // 64, 4 * args.dim,
                                             dropout=0.0, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, args.layers, enable_nested_tensor=False)
    model = torch.nn.Sequential(encoder, torch.nn.Linear(args.dim, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    x = torch.randn(args.batch, args.seq, args.dim, device="cuda")
    y = torch.randint(0, 10, (args.batch, args.seq), device="cuda")
    share = HostShare(bookkeeping)
    timer = Timer(warmup=5, steps=args.steps, shares=[share])
    log, pending, n = {}, [], 0
    while not timer.done():
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        acc = (logits.detach().argmax(-1) == y).float().mean()
        n += 1
        record = {"step": n, "lr": opt.param_groups[0]["lr"]}
        if args.no_sync:
            pending.append(torch.stack([loss.detach(), acc, norm]))
            if n % args.every == 0:
                log["last"] = torch.stack(pending).mean(0).tolist()
                pending = []
        else:
            with share.waiting():
                record.update(loss=loss.item(), acc=acc.item(), grad_norm=norm.item())
        share(log, record, args.host_ms)
        timer.step()
    timer.report(args.batch)


if __name__ == "__main__":
    main()
