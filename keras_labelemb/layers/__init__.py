"""Keras layers: document encoders, label encoders and label-aware output heads."""

from keras_labelemb.layers.attention_pooling import AttentionPooling
from keras_labelemb.layers.gile_head import GileHead, joint_dim_matching_linear
from keras_labelemb.layers.hierarchical_attention import HierarchicalAttention
from keras_labelemb.layers.label_encoder import LabelEncoder

__all__ = ["AttentionPooling", "GileHead", "HierarchicalAttention", "LabelEncoder", "joint_dim_matching_linear"]
