"""A bidirectional RNN sublayer that survives `keras.models.load_model`."""

import keras


def bidirectional(rnn_class, units, dtype, name, **rnn_kwargs):
    """`keras.layers.Bidirectional` over `rnn_class(units, **rnn_kwargs)`, one instance per direction.

    Why not `Bidirectional(rnn)`: that constructor serializes `rnn` twice (a forward and a backward copy).
    Inside `load_model`, Keras tracks serialized objects by `id()`, so the second serialization marks `rnn`
    as shared; once `rnn` is freed, its `id()` can come back for the next layer's template, and
    deserialization then hands that layer an earlier copy: "Forward layer and backward layer should have
    different `go_backwards` value" (Keras 3.15: 22 of 300 rounds of 8 constructions in one loading scope). Passing the
    backward layer serializes the forward one once, and keeping the template alive keeps its `id()` taken.
    """
    forward = rnn_class(units, dtype=dtype, name=f"{name}_forward", **rnn_kwargs)
    backward = rnn_class(units, go_backwards=True, dtype=dtype, name=f"{name}_backward", **rnn_kwargs)
    layer = keras.layers.Bidirectional(forward, backward_layer=backward, dtype=dtype, name=name)
    object.__setattr__(layer, "_forward_template", forward)  # untracked: holds no weights, only the id()
    return layer
