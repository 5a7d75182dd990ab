"""Plots of what the layers computed (matplotlib, an optional dependency, is imported when drawing)."""

from keras_labelemb.plotting.attention_plot import plot_attention
from keras_labelemb.plotting.co_attention_plot import plot_co_attention

__all__ = [
    "plot_attention",
    "plot_co_attention",
]
