"""Losses: sampled training over large label sets (the loss and the sampler of its candidate labels), a softmax
over the labels (one scale for every label's score), and the label-sequence loss of a label decoder (CNLE eq. 14)."""

from keras_labelemb.losses.label_sampler import LabelSampler
from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
from keras_labelemb.losses.label_softmax_loss import LabelSoftmaxLoss
from keras_labelemb.losses.sampled_sigmoid_loss import SampledSigmoidLoss

__all__ = [
    "LabelSampler",
    "LabelSequenceLoss",
    "LabelSoftmaxLoss",
    "SampledSigmoidLoss",
]
