"""A global Keras dtype policy for the duration of a `with` block."""

import contextlib

import keras


@contextlib.contextmanager
def dtype_policy(name):
    """Sets Keras' global dtype policy (e.g. `"mixed_float16"`) inside the block and restores the previous one
    after it, also when the block raises; layers made inside keep the policy they were made with.

    >>> import keras
    >>> with dtype_policy("mixed_float16"):
    ...     layer = keras.layers.Dense(2)
    >>> layer.compute_dtype, layer.variable_dtype, keras.config.dtype_policy().name
    ('float16', 'float32', 'float32')
    """
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy(name)
    try:
        yield
    finally:
        keras.config.set_dtype_policy(previous)
