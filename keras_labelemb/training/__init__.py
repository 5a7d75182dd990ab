"""Training wrappers: sampled-label training of an existing model."""

from keras_labelemb.training.sampled_label_model import SampledLabelModel

__all__ = ["SampledLabelModel"]
