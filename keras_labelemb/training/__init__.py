"""Training wrappers: sampled-label training of an existing model."""

from keras_labelemb.training.sampled_label_model import SampledLabelModel, find_label_head

__all__ = ["SampledLabelModel", "find_label_head"]
