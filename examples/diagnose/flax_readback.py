# SPDX-License-Identifier: MIT
"""flax_readback.py - a Flax (linen) MLP classifier trained with Optax
(Adam) in a jitted step that returns its metrics (loss, gradient norm).
Every step the host reads them back (jax.device_get) and does its
bookkeeping with them (running means, a JSON log line: common.bookkeeping,
--host-ms of it).

Expected: communication (the readback waits for the step; nothing is
queued behind it, so the GPU idles through the bookkeeping).  Fixed twin:
--no-readback (the metrics are summed on the GPU and read once at the
end; the bookkeeping, still every step, overlaps the next step's GPU work
since JAX's dispatch runs ahead).

The truth line names the bookkeeping function and its share of the
training thread's CPU time, the readback's own wait left out.
"""
import argparse
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

from common import HostShare, Timer, bookkeeping, need  # noqa: E402


def make_model(nn, width, layers, classes):
    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            for _ in range(layers):
                x = nn.relu(nn.Dense(width)(x))
            return nn.Dense(classes)(x)

    return MLP()


def make_step(jax, jnp, optax, model, tx):
    def loss_fn(params, x, y):
        logits = model.apply({"params": params}, x)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    def train_step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
        return params, opt_state, {"loss": loss, "grad_norm": norm}

    return jax.jit(train_step, donate_argnums=(0, 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-readback", action="store_true")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--host-ms", type=float, default=2.0)
    args = ap.parse_args()

    jax = need("jax", "JAX")
    jnp = need("jax.numpy", "JAX")
    nn = need("flax.linen", "Flax")
    optax = need("optax", "Optax")
    jax.config.update("jax_default_matmul_precision", "tensorfloat32")
    model = make_model(nn, args.width, args.layers, 10)
    kx, ky, kp = jax.random.split(jax.random.PRNGKey(0), 3)
    x = jax.random.normal(kx, (args.batch, args.width), jnp.float32)
    y = jax.random.randint(ky, (args.batch,), 0, 10)
    params = model.init(kp, x[:1])["params"]
    tx = optax.adam(1e-4)
    opt_state = tx.init(params)
    step = make_step(jax, jnp, optax, model, tx)

    state = {}
    log = {}
    share = HostShare(bookkeeping)
    timer = Timer(warmup=5, steps=args.steps, shares=[share],
                  sync=lambda: jax.block_until_ready(state.get("last")))
    sums = {"loss": jnp.zeros(()), "grad_norm": jnp.zeros(())}
    n = 0
    while not timer.done():
        params, opt_state, metrics = step(params, opt_state, x, y)
        n += 1
        if args.no_readback:
            sums = jax.tree_util.tree_map(lambda a, b: a + b, sums, metrics)
            record = {"step": n}
        else:
            with share.waiting():
                record = {k: float(v) for k, v in jax.device_get(metrics).items()}
            record["step"] = n
        state["last"] = (params, sums)
        share(log, record, args.host_ms)
        timer.step()
    timer.report(args.batch, f" logged={log.get('n', 0)}")


if __name__ == "__main__":
    main()
