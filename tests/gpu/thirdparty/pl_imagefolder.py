# SPDX-License-Identifier: MIT
"""Lightning's own loop: a LightningModule around torchvision's resnet18,
trained by lightning.Trainer for one epoch (40 batches) with its
validation pass (10 batches) and the sanity check of 2 validation
batches before training, 16-bit mixed precision, on an ImageFolder of
JPEGs (RandomResizedCrop, flip, ToTensor, Normalize) with 8 workers and
pin_memory=True. Lightning moves each batch to the GPU itself.

    python3 pl_imagefolder.py DATA_DIR"""
import sys

import lightning as L
import torch
import torchvision
from torchvision import transforms as T


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.resnet18(num_classes=10)
        self.loss = torch.nn.CrossEntropyLoss()

    def training_step(self, batch, i):
        x, y = batch
        loss = self.loss(self.model(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", self.loss(self.model(x), y))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)


def loader(root, train):
    norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    tf = (T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), norm]) if train
          else T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm]))
    ds = torchvision.datasets.ImageFolder(f"{root}/{'train' if train else 'val'}", tf)
    return torch.utils.data.DataLoader(ds, batch_size=64, shuffle=train, num_workers=8, pin_memory=True,
                                       persistent_workers=True)


def main():
    torch.backends.cudnn.benchmark = True
    trainer = L.Trainer(max_epochs=1, limit_train_batches=40, limit_val_batches=10, accelerator="gpu",
                        devices=1, precision="16-mixed", logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Net(), loader(sys.argv[1], True), loader(sys.argv[1], False))
    print("pl_imagefolder: done")


if __name__ == "__main__":
    main()
