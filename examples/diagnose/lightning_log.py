# SPDX-License-Identifier: MIT
"""lightning_log.py - a Lightning Trainer (an MLP on batches already on the
GPU) whose training_step logs its loss and accuracy with
self.log(..., prog_bar=True).

Lightning turns every progress-bar metric into a Python number at the end
of each batch (ResultCollection.metrics calls .item() on it), so each
step waits for the GPU, which then idles through Lightning's own host work
between steps (hooks, progress bar, the next step's launches).

Expected: communication.  Fixed twin: --log device (the same values
logged without prog_bar: they stay tensors on the GPU and are read only
when a logger would write them, every log_every_n_steps; the progress bar
still runs).
"""
import argparse
import os

import torch
from torch.utils.data import DataLoader, Dataset

from common import Timer, need


class Batches(Dataset):
    """The same batch, already on the GPU, `n` times (no copy per step)."""

    def __init__(self, n, x, y):
        self.n, self.x, self.y = n, x, y

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.x, self.y


def module_class(pl, log_mode, width, layers, classes):
    class Classifier(pl.LightningModule):
        def __init__(self):
            super().__init__()
            mods = []
            for _ in range(layers):
                mods += [torch.nn.Linear(width, width), torch.nn.ReLU()]
            self.net = torch.nn.Sequential(*mods, torch.nn.Linear(width, classes))

        def training_step(self, batch, batch_idx):
            x, y = batch
            logits = self.net(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
            acc = (logits.argmax(-1) == y).float().mean()
            pbar = log_mode == "pbar"
            self.log("train_loss", loss, prog_bar=pbar)
            self.log("train_acc", acc, prog_bar=pbar)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=1e-3)

    return Classifier


def timing_callback(pl, timer, batch):
    class Timing(pl.Callback):
        """Counts steps; reports and stops the Trainer after the last."""

        def __init__(self):
            self.reported = False

        def on_train_batch_end(self, trainer, pl_module, outputs, b, batch_idx):
            if self.reported:
                return
            timer.step()
            if timer.done():
                timer.report(batch)
                self.reported = True
                trainer.should_stop = True

    return Timing()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", choices=["pbar", "device"], default="pbar")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--batch", type=int, default=4096)
    args = ap.parse_args()

    try:
        import lightning.pytorch as pl
    except ImportError:
        pl = need("pytorch_lightning", "Lightning (lightning or pytorch_lightning)")
    torch.set_float32_matmul_precision("high")
    x = torch.randn(args.batch, args.width, device="cuda")
    y = torch.randint(0, 10, (args.batch,), device="cuda")
    warmup = 10
    until = float(os.environ.get("DIAG_UNTIL", "0")) > 0
    n = 10 ** 6 if until else args.steps + warmup + 5
    loader = DataLoader(Batches(n, x, y), batch_size=None)
    timer = Timer(warmup=warmup, steps=args.steps)
    model = module_class(pl, args.log, args.width, args.layers, 10)()
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=1, max_steps=n,
                         logger=False, enable_checkpointing=False,
                         enable_model_summary=False, num_sanity_val_steps=0,
                         log_every_n_steps=50,
                         callbacks=[timing_callback(pl, timer, args.batch)])
    trainer.fit(model, train_dataloaders=loader)


if __name__ == "__main__":
    main()
