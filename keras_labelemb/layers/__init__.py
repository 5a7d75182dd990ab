"""Keras layers: document encoders, label encoders and label-aware output heads."""

from keras_labelemb.layers.adaptive_label_decoder import AdaptiveLabelDecoder
from keras_labelemb.layers.attention_pooling import AttentionPooling
from keras_labelemb.layers.co_attention import CoAttention
from keras_labelemb.layers.co_attentive_encoder import CoAttentiveEncoder
from keras_labelemb.layers.cosine_head import CosineHead
from keras_labelemb.layers.drill_head import DrillHead
from keras_labelemb.layers.embedding_match_head import EmbeddingMatchHead
from keras_labelemb.layers.gile_head import GileHead
from keras_labelemb.layers.hierarchical_attention import HierarchicalAttention
from keras_labelemb.layers.hybrid_head import HybridHead
from keras_labelemb.layers.label_encoder import LabelEncoder
from keras_labelemb.layers.label_head import LabelHead
from keras_labelemb.layers.lexical_match_head import LexicalMatchHead
from keras_labelemb.layers.linear_head import LinearHead
from keras_labelemb.layers.max_pool_encoder import MaxPoolEncoder
from keras_labelemb.layers.region_lstm import RegionLSTM
from keras_labelemb.layers.region_pooling import RegionPooling
from keras_labelemb.layers.sentence_encoder import SentenceEncoder
from keras_labelemb.layers.sentence_match_head import SentenceMatchHead
from keras_labelemb.layers.token_label_head import TokenLabelHead
from keras_labelemb.layers.wide_head import WideHead
from keras_labelemb.layers.word_interaction_head import WordInteractionHead

__all__ = [
    "CosineHead",
    "AdaptiveLabelDecoder",
    "AttentionPooling",
    "CoAttention",
    "CoAttentiveEncoder",
    "DrillHead",
    "EmbeddingMatchHead",
    "GileHead",
    "HierarchicalAttention",
    "HybridHead",
    "LabelEncoder",
    "LabelHead",
    "LexicalMatchHead",
    "LinearHead",
    "MaxPoolEncoder",
    "RegionLSTM",
    "RegionPooling",
    "SentenceEncoder",
    "SentenceMatchHead",
    "TokenLabelHead",
    "WideHead",
    "WordInteractionHead",
]
