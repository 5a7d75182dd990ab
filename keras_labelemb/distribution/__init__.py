"""Distributed training helpers: model parallelism over the label axis (`label_sharding_layout_map`)."""

from keras_labelemb.distribution.label_sharding import label_sharding_layout_map

__all__ = ["label_sharding_layout_map"]
