# SPDX-License-Identifier: MIT
"""Host-bound workload of the overhead benchmark: a transformer fine-tuning
step on short sequences. transformers' BertForSequenceClassification built
from a BertConfig in code (BERT-base shape by default: 12 layers, hidden
768; no weights downloaded, HF_HUB_OFFLINE=1), or torch.nn.TransformerEncoder
of the same shape when transformers is missing (--impl torch). bf16
autocast, AdamW, synthetic token ids.

Each step copies a pinned batch (input ids, attention mask, labels) with
.to("cuda", non_blocking=True), runs forward, backward and the optimizer,
and ends with loss.item() (one sync a step, as a training loop that logs
its loss does). With batch 32 and 48 tokens the GPU finishes each kernel
before the host has launched the next: the step lasts as long as the host
takes to launch it, so every host-side cost of a profiler is step time.

Prints `transformer_step: median step X ms ...` like the other bench
scripts. With --alternate [hook|pfprof] (bench/step_alternation.py),
under `pfprof record`, the timed steps alternate in one process between
the Python hook's wrappers and the methods they wrap (hook), or between
the whole profiler recording and paused (pfprof, under
--capture-range=cuda-profiler-api), and it also prints `alternating WHAT
on/off, ...: median step on A ms, off B ms: cost +P% (N pairs, ...)`: the
cost free of what differs between two processes.
"""
import argparse
import os
import statistics

import torch
import torch.nn.functional as F

import step_alternation


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=100, help="timed steps")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps first")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seq", type=int, default=48, help="tokens per sequence")
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--impl", choices=["auto", "transformers", "torch"], default="auto")
    step_alternation.add_arguments(p)
    args = p.parse_args()
    if args.steps < 1 or args.warmup < 0 or args.batch < 1 or not 8 <= args.seq <= 512:
        p.error("need --steps >= 1, --warmup >= 0, --batch >= 1, 8 <= --seq <= 512")
    return args


class TorchClassifier(torch.nn.Module):
    def __init__(self, vocab, hidden, layers, heads, seq):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.pos = torch.nn.Parameter(torch.zeros(1, seq, hidden))
        layer = torch.nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, batch_first=True,
                                                 activation="gelu")
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(hidden, 2)

    def forward(self, input_ids, attention_mask, labels):
        x = self.embed(input_ids) + self.pos[:, : input_ids.shape[1]]
        x = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        return F.cross_entropy(self.head(x[:, 0]), labels)


def build(args):
    heads = max(1, args.hidden // 64)
    if args.impl != "torch":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            import transformers
        except ImportError:
            if args.impl == "transformers":
                raise
        else:
            cfg = transformers.BertConfig(vocab_size=30522, hidden_size=args.hidden,
                                          num_hidden_layers=args.layers, num_attention_heads=heads,
                                          intermediate_size=4 * args.hidden, max_position_embeddings=512,
                                          num_labels=2)
            try:
                # Built on the GPU: initializing BERT-base on the CPU takes seconds.
                with torch.device("cuda"):
                    model = transformers.BertForSequenceClassification(cfg)
            except Exception as e:  # a transformers that builds no BERT this way
                if args.impl == "transformers":
                    raise
                print(f"transformer_step: transformers {transformers.__version__} failed ({e}); "
                      "torch.nn.TransformerEncoder instead", flush=True)
            else:
                def loss_of(m, batch):
                    return m(**batch).loss

                return model, loss_of, f"transformers {transformers.__version__} BERT"
    with torch.device("cuda"):
        model = TorchClassifier(30522, args.hidden, args.layers, heads, args.seq)

    def loss_of(m, batch):
        return m(**batch)

    return model, loss_of, "torch.nn.TransformerEncoder"


def main():
    args = parse_args()
    alt = step_alternation.from_args(args, "transformer_step")
    torch.manual_seed(0)
    model, loss_of, what = build(args)
    model = model.cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
    g = torch.Generator().manual_seed(0)
    pool = []
    for _ in range(2):
        ids = torch.randint(0, 30522, (args.batch, args.seq), generator=g)
        lens = torch.randint(args.seq // 2, args.seq + 1, (args.batch, 1), generator=g)
        mask = (torch.arange(args.seq).unsqueeze(0) < lens).long()
        labels = torch.randint(0, 2, (args.batch,), generator=g)
        pool.append({"input_ids": ids.pin_memory(), "attention_mask": mask.pin_memory(),
                     "labels": labels.pin_memory()})

    def step(i):
        batch = {k: v.to("cuda", non_blocking=True) for k, v in pool[i % len(pool)].items()}
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_of(model, batch)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        loss.item()

    times = step_alternation.timed_steps(step, args.warmup, args.steps, alt)
    if alt is not None:
        alt.report()
    ms = sorted(t * 1e3 for t in times)
    q = statistics.quantiles(ms, n=10) if len(ms) >= 2 else [ms[0]] * 9
    print(f"transformer_step: median step {statistics.median(ms):.3f} ms, p10 {q[0]:.3f}, p90 {q[8]:.3f} "
          f"over {len(ms)} steps ({what}, {args.layers} layers, hidden {args.hidden}, batch {args.batch}, "
          f"{args.seq} tokens, bf16 autocast)", flush=True)


if __name__ == "__main__":
    main()
