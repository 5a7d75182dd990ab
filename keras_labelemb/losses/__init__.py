"""Losses: sampled training over large label sets (the loss and the sampler of its candidate labels)."""

from keras_labelemb.losses.label_sampler import LabelSampler
from keras_labelemb.losses.sampled_sigmoid_loss import SampledSigmoidLoss

__all__ = ["LabelSampler", "SampledSigmoidLoss"]
