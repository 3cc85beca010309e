#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make_imagefolder.py DIR TRAIN VAL [SIDE]: an ImageFolder of JPEGs for
the GPU tests, DIR/train/cNN/*.jpg and DIR/val/cNN/*.jpg (10 classes,
SIDE x SIDE pixels, default 320), the same every time (seeded), made by
all cores. Smooth gradients and noise, so that decoding costs what a
photograph's does rather than a flat image's."""
import os
import sys
from multiprocessing import Pool

import numpy as np
from PIL import Image

CLASSES = 10


def one(job):
    path, seed, side = job
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:side, 0:side].astype(np.float32) / side
    base = np.stack([np.sin(x * rng.uniform(2, 9) + rng.uniform(0, 6)),
                     np.cos(y * rng.uniform(2, 9) + rng.uniform(0, 6)),
                     np.sin((x + y) * rng.uniform(2, 9))], axis=-1)
    img = (base * 90 + 128 + rng.normal(0, 25, (side, side, 3))).clip(0, 255).astype(np.uint8)
    Image.fromarray(img).save(path, quality=90)


def main():
    root, n_train, n_val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    side = int(sys.argv[4]) if len(sys.argv) > 4 else 320
    jobs = []
    for split, n in (("train", n_train), ("val", n_val)):
        for c in range(CLASSES):
            os.makedirs(os.path.join(root, split, f"c{c:02d}"), exist_ok=True)
        for i in range(n):
            c = i % CLASSES
            jobs.append((os.path.join(root, split, f"c{c:02d}", f"{i:06d}.jpg"),
                         i + (0 if split == "train" else 10 ** 6), side))
    with Pool() as pool:
        pool.map(one, jobs, chunksize=64)
    print(f"{root}: {n_train} train, {n_val} val images of {side}x{side}")


if __name__ == "__main__":
    main()
