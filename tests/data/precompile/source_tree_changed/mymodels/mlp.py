"""A two-layer MLP: the module whose source the precompile fixtures inline."""
import torch
from torch import nn


def gelu_tanh(x):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + torch.tanh(inner))


class MLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, d_out=8):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        h = self.fc1(x)
        h = torch.relu(h)
        return self.fc2(h)
