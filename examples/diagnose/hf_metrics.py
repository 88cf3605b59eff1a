# SPDX-License-Identifier: MIT
"""hf_metrics.py - a Hugging Face transformers training loop (a small GPT-2
made from its config, no download) that computes its metrics on the host
every step: the predictions come back with .cpu().numpy(), the loss with
.item(), and token accuracy and n-gram diversity are computed with numpy
and Python (token_metrics).

Expected: communication (the readback waits for the step; the GPU idles
while the host computes the metrics and launches the next step).  Fixed
twin: --metrics gpu (accuracy and loss summed on the GPU; predictions read
and the host metrics computed every --every steps).

The batches are on the GPU before the loop (no upload per step) and their
tokens on the host too, as a tokenizer would leave them.  The truth line
names token_metrics and its share of the training thread's CPU time, the
readback's own wait left out.
"""
import argparse

import numpy as np
import torch

from common import HostShare, Timer, need, optimize


def token_metrics(preds, ids):
    """Next-token accuracy, accuracy by position, and distinct-1/2 (the
    share of n-grams in the predictions that are new): what an LM
    training script logs, on numpy arrays [batch, seq]."""
    hits = preds[:, :-1] == ids[:, 1:]
    out = {"acc": float(hits.mean()), "acc_by_pos": hits.mean(axis=0).round(3).tolist()}
    rows = preds.tolist()
    for n in (1, 2):
        grams, seen = 0, set()
        for row in rows:
            for i in range(len(row) - n + 1):
                seen.add(tuple(row[i:i + n]))
                grams += 1
        out[f"distinct{n}"] = len(seen) / max(grams, 1)
    return out


def build(args):
    tf = need("transformers", "Hugging Face transformers")
    cfg = tf.GPT2Config(vocab_size=args.vocab, n_positions=args.seq, n_embd=args.hidden,
                        n_layer=args.layers, n_head=args.heads)
    model = tf.GPT2LMHeadModel(cfg).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    return model, opt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--metrics", choices=["host", "gpu"], default="host")
    ap.add_argument("--every", type=int, default=50, help="with --metrics gpu: read every N steps")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--heads", type=int, default=8)
    args = ap.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = True
    model, opt = build(args)
    gen = np.random.default_rng(0)
    host = [gen.integers(0, args.vocab, (args.batch, args.seq)) for _ in range(4)]
    dev = [torch.from_numpy(h).cuda() for h in host]
    metrics = HostShare(token_metrics)
    timer = Timer(warmup=5, steps=args.steps, shares=[metrics])
    loss_sum = torch.zeros((), device="cuda")
    acc_sum = torch.zeros((), device="cuda")
    history, step = [], 0
    while not timer.done():
        ids, ids_np = dev[step % 4], host[step % 4]
        out = model(input_ids=ids, labels=ids)
        optimize(out.loss, opt)
        step += 1
        if args.metrics == "host":
            with metrics.waiting():
                preds = out.logits.argmax(-1).cpu().numpy()   # the per-step readback
                loss = out.loss.item()
            history.append(dict(metrics(preds, ids_np), loss=loss, step=step))
        else:
            with torch.no_grad():
                loss_sum += out.loss.detach()
                acc_sum += (out.logits[:, :-1].argmax(-1) == ids[:, 1:]).float().mean()
            if step % args.every == 0:
                preds = out.logits.argmax(-1).cpu().numpy()
                sums = torch.stack([loss_sum, acc_sum]).tolist()
                history.append(dict(metrics(preds, ids_np), loss=sums[0] / args.every,
                                    mean_acc=sums[1] / args.every, step=step))
                loss_sum.zero_()
                acc_sum.zero_()
        del out
        timer.step()
    timer.report(args.batch, f" logged={len(history)}")


if __name__ == "__main__":
    main()
