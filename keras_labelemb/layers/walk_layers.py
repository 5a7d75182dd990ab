"""Every layer of a model, nested models included, through Keras' public `layers` only."""

import keras


def walk_layers(model):
    """Yields the layers of `model` in graph order, descending into nested models.

    Layers that a layer holds as attributes (a head's shared embedding, an
    RNN wrapper's cells) are not visited: the library's heads and stateful
    RNNs sit at a model's top level or in a nested model.

    >>> inner = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="inner_dense")])
    >>> outer = keras.Sequential([keras.Input((3,)), inner, keras.layers.Dense(1, name="top")])
    >>> [layer.name for layer in walk_layers(outer)][1:]
    ['inner_dense', 'top']
    """
    for layer in model.layers:
        yield layer
        if isinstance(layer, keras.Model):
            yield from walk_layers(layer)
