# SPDX-License-Identifier: MIT
"""jax_sync.py - a JAX training loop (a jitted MLP step: forward, gradient,
SGD update) that reads its loss on the host every step, then does some
Python bookkeeping (logging, metrics).

Expected: communication (float(loss) waits for the step; the GPU idles
while the host does its bookkeeping, since nothing is queued behind it).
Fixed twin: --no-sync (the loss is summed on the GPU and read once at the
end; JAX's dispatch runs ahead, so the bookkeeping overlaps the next
step's GPU work).
"""
import argparse
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from common import Timer, burn  # noqa: E402


def init(key, width, layers):
    params = []
    for k in jax.random.split(key, layers):
        w = jax.random.normal(k, (width, width), jnp.float32) / jnp.sqrt(width)
        params.append((w, jnp.zeros((width,), jnp.float32)))
    return params


def loss_fn(params, x):
    for w, b in params:
        x = jax.nn.relu(x @ w + b)
    return jnp.mean(x * x)


def train_step(params, x):
    loss, grads = jax.value_and_grad(loss_fn)(params, x)
    params = jax.tree_util.tree_map(lambda p, g: p - 1e-4 * g, params, grads)
    return params, loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-sync", action="store_true")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--host-ms", type=float, default=1.5)
    args = ap.parse_args()

    jax.config.update("jax_default_matmul_precision", "tensorfloat32")
    step = jax.jit(train_step, donate_argnums=0)
    params = init(jax.random.PRNGKey(0), args.width, args.layers)
    x = jax.random.normal(jax.random.PRNGKey(1), (args.batch, args.width), jnp.float32)
    total = jnp.zeros((), jnp.float32)
    state = {}
    timer = Timer(warmup=5, steps=args.steps,
                  sync=lambda: jax.block_until_ready(state.get("last")))
    host_total = 0.0
    while not timer.done():
        params, loss = step(params, x)
        if args.no_sync:
            total = total + loss
        else:
            host_total += float(loss)   # the per-step sync
        state["last"] = (params, total)
        burn(args.host_ms)              # logging, metrics
        timer.step()
    timer.report(args.batch, f" total={float(total) + host_total:.3f}")


if __name__ == "__main__":
    main()
