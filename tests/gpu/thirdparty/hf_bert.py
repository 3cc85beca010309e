"""Hugging Face transformers: BertForSequenceClassification built from a
BertConfig in code (4 layers, hidden 256, no weights downloaded), trained
on synthetic token ids, batches of dicts (input_ids, attention_mask,
labels) stacked by PyTorch's default collate, DataLoader(pin_memory=True),
each tensor copied with non_blocking=True, AdamW."""
import torch

import tp_common as tp


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, seq, vocab):
        self.n = n
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab, (1024, seq), generator=g)
        self.lens = torch.randint(seq // 2, seq + 1, (1024,), generator=g)
        self.labels = torch.randint(0, 2, (1024,), generator=g)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        j = i % len(self.ids)
        mask = (torch.arange(self.ids.shape[1]) < self.lens[j]).long()
        return {"input_ids": self.ids[j], "attention_mask": mask, "labels": self.labels[j]}


def main():
    p = tp.parser(__doc__, steps=60, warmup=15, batch=64)
    p.add_argument("--seq", type=int, default=128)
    args = p.parse_args()
    tr = tp.need("transformers")
    import sample_common as sc

    cfg = tr.BertConfig(vocab_size=30522, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                        intermediate_size=1024, max_position_embeddings=512, num_labels=2)
    model = tr.BertForSequenceClassification(cfg).cuda()
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
    ds = Tokens((args.warmup + args.steps) * args.batch, args.seq, cfg.vocab_size)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                         pin_memory=True, persistent_workers=args.workers > 0)
    timer = sc.StepTimer(args.warmup)
    pinned = None
    for batch in loader:
        timer.tick()
        if pinned is None:
            pinned = all(v.is_pinned() for v in batch.values())
        batch = {k: v.to("cuda", non_blocking=True) for k, v in batch.items()}
        out = model(**batch)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    timer.report("hf_bert", False, f"; transformers {tr.__version__}; batch pinned: {pinned}")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
