"""Losses: sampled training over large label sets."""

from keras_labelemb.losses.sampled_sigmoid_loss import SampledSigmoidLoss

__all__ = ["SampledSigmoidLoss"]
