"""Losses: sampled training over large label sets (the loss and the sampler of its candidate labels), and the
label-sequence loss of a label decoder (CNLE eq. 14)."""

from keras_labelemb.losses.label_sampler import LabelSampler
from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
from keras_labelemb.losses.sampled_sigmoid_loss import SampledSigmoidLoss

__all__ = [
    "LabelSampler",
    "LabelSequenceLoss",
    "SampledSigmoidLoss",
]
