"""keras_labelemb: Keras 3 layers for text classification that use what labels mean."""

__version__ = "0.1.0"
