# SPDX-License-Identifier: MIT
"""infer_server.py - the loop of an inference server: requests (token ids
as a JSON body would bring them) answered by a Hugging Face BERT
classifier (made from its config, no download, bf16, inference mode).
Each request is uploaded, run and its probabilities read back for the
response on its own: batch 1, a wait per request.

Expected: memory_batch (what pays is batching the requests: the wait per
request stays, but for --batch of them; the GPU works on one sequence at a
time).  Fixed twin: --batch 32 (requests taken 32 at a time; compared per
request).
"""
import argparse
import json

import numpy as np
import torch

from common import Timer, need


def respond(rid, probs):
    """The response body of one request."""
    return json.dumps({"id": rid, "label": int(np.argmax(probs)),
                       "probs": [round(p, 4) for p in probs]})


def build(args):
    tf = need("transformers", "Hugging Face transformers")
    cfg = tf.BertConfig(vocab_size=args.vocab, hidden_size=args.hidden,
                        num_hidden_layers=args.layers, num_attention_heads=args.heads,
                        intermediate_size=4 * args.hidden, max_position_embeddings=512,
                        num_labels=4)
    return tf.BertForSequenceClassification(cfg).to("cuda", torch.bfloat16).eval()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=1, help="requests per forward pass")
    ap.add_argument("--steps", type=int, default=1500, help="forward passes")
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--heads", type=int, default=8)
    args = ap.parse_args()

    model = build(args)
    gen = np.random.default_rng(0)
    requests = [gen.integers(0, args.vocab, args.seq).tolist() for _ in range(256)]
    timer = Timer(warmup=10, steps=args.steps)
    responses, rid = [], 0
    with torch.inference_mode():
        while not timer.done():
            batch = [requests[(rid + k) % len(requests)] for k in range(args.batch)]
            ids = torch.tensor(batch, device="cuda")
            logits = model(input_ids=ids).logits
            probs = logits.float().softmax(-1).cpu().tolist()
            for p in probs:
                responses.append(respond(rid, p))
                rid += 1
            if len(responses) > 4096:
                del responses[:2048]
            timer.step()
    timer.report(args.batch)


if __name__ == "__main__":
    main()
