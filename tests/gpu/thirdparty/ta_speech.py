"""torchaudio: log-mel features computed per sample on the CPU in the
Dataset (torchaudio.transforms.MelSpectrogram, in 2 DataLoader workers),
stacked by the default collate, pin_memory=True, and a small CNN keyword
classifier trained on them."""
import torch
import torch.nn.functional as F

import tp_common as tp


class Clips(torch.utils.data.Dataset):
    def __init__(self, n, seconds, mel):
        self.n = n
        self.mel = mel
        g = torch.Generator().manual_seed(0)
        self.pool = [torch.randn(1, int(16000 * seconds), generator=g) * 0.1 for _ in range(16)]

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        wave = self.pool[i % len(self.pool)]
        feats = torch.log(self.mel(wave) + 1e-6)       # (1, n_mels, frames)
        return feats, i % 35


def main():
    p = tp.parser(__doc__, steps=40, warmup=10, batch=128)
    p.add_argument("--seconds", type=float, default=1.0)
    args = p.parse_args()
    ta = tp.need("torchaudio")
    T = tp.need("torchaudio.transforms")
    import sample_common as sc

    mel = T.MelSpectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=64)
    ds = Clips((args.warmup + args.steps) * args.batch, args.seconds, mel)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(64, 128, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(), torch.nn.Linear(128, 35)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                         pin_memory=True, persistent_workers=args.workers > 0)
    timer = sc.StepTimer(args.warmup)
    for x, y in loader:
        timer.tick()
        x = x.to("cuda", non_blocking=True)
        y = y.to("cuda", non_blocking=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    timer.report("ta_speech", False, f"; torchaudio {ta.__version__}; {args.workers} workers")


if __name__ == "__main__":
    main()
# SPDX-License-Identifier: MIT
