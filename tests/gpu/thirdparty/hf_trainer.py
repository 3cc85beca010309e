# SPDX-License-Identifier: MIT
"""Hugging Face's own loop: transformers.Trainer training a small
BertForSequenceClassification (built from a BertConfig in code: 4
layers, hidden 256, no weights downloaded) on synthetic token ids for one
epoch of 40 optimizer steps, each over 4 micro-batches of 32 (gradient
accumulation), then its evaluation loop over 10 batches of 64; bf16,
4 DataLoader workers, pinned batches, logging every 10 steps. Trainer
moves each batch to the GPU itself.

    python3 hf_trainer.py"""
import inspect

import torch

import tp_common as tp

MICRO, ACCUM, STEPS, EVAL_BATCH, EVAL_BATCHES, SEQ = 32, 4, 40, 64, 10, 128


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, vocab, seed):
        g = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(0, vocab, (n, SEQ), generator=g)
        self.lens = torch.randint(SEQ // 2, SEQ + 1, (n,), generator=g)
        self.labels = torch.randint(0, 2, (n,), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        mask = (torch.arange(SEQ) < self.lens[i]).long()
        return {"input_ids": self.ids[i], "attention_mask": mask, "labels": self.labels[i]}


def main():
    tr = tp.need("transformers")
    cfg = tr.BertConfig(vocab_size=30522, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                        intermediate_size=1024, max_position_embeddings=512, num_labels=2)
    model = tr.BertForSequenceClassification(cfg)
    kw = dict(output_dir="/tmp/hf-trainer-out", num_train_epochs=1, per_device_train_batch_size=MICRO,
              gradient_accumulation_steps=ACCUM, per_device_eval_batch_size=EVAL_BATCH, bf16=True,
              dataloader_num_workers=4, dataloader_pin_memory=True, logging_steps=10, save_strategy="no",
              report_to="none", disable_tqdm=True)
    # The argument was renamed in transformers 4.41.
    names = inspect.signature(tr.TrainingArguments.__init__).parameters
    kw["eval_strategy" if "eval_strategy" in names else "evaluation_strategy"] = "epoch"
    trainer = tr.Trainer(model=model, args=tr.TrainingArguments(**kw),
                         train_dataset=Tokens(MICRO * ACCUM * STEPS, cfg.vocab_size, 0),
                         eval_dataset=Tokens(EVAL_BATCH * EVAL_BATCHES, cfg.vocab_size, 1))
    trainer.train()
    print(f"hf_trainer: done; transformers {tr.__version__}")


if __name__ == "__main__":
    main()
