"""The Cortex-M sample's model, with random weights from a fixed seed.

Batch-norm layers get seeded, non-trivial running statistics and affine
parameters: default initialisation makes them near-identity, and a runtime
that skipped them would still pass.
"""
import torch
import torch.nn as nn


def randomize_batch_norms(model, generator):
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            n = module.num_features
            with torch.no_grad():
                module.running_mean.copy_(torch.randn(n, generator=generator) * 0.2)
                module.running_var.copy_(torch.rand(n, generator=generator) + 0.5)
                module.weight.copy_(torch.rand(n, generator=generator) + 0.5)
                module.bias.copy_(torch.randn(n, generator=generator) * 0.2)
    return model


class ResidualBlock(nn.Module):
    """Two 3x3 convolutions with batch norm and a shortcut (a strided 1x1
    convolution when the shape changes), ReLU after the add."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + self.shortcut(x))


class TinyResNet(nn.Module):
    """The image-classification ResNet of MLPerf Tiny's kind (32x32 RGB in,
    10 classes, three residual stages of 16/32/64 channels), with a max pool
    after the stem."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(2))
        self.stage1 = ResidualBlock(16, 16, 1)
        self.stage2 = ResidualBlock(16, 32, 2)
        self.stage3 = ResidualBlock(32, 64, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = self.stage3(self.stage2(self.stage1(self.stem(x))))
        return self.fc(torch.flatten(self.pool(x), 1))
