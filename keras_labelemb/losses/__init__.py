"""Losses: sampled training over large label sets."""

from keras_labelemb.losses.sampled_sigmoid_loss import SampledSigmoidLoss, binary_crossentropy_from_logits

__all__ = ["SampledSigmoidLoss", "binary_crossentropy_from_logits"]
