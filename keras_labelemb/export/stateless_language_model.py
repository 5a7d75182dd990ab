"""A stateless copy of a stateful language model: what scoring or serving one text needs."""

import keras

from keras_labelemb.layers import LabelHead


def _layer_chain(model):
    """The layers of a single-input, single-output functional model whose layers each read the previous one's output."""
    layers = getattr(model, "layers", None)
    chain = (layers or [])[1:]
    is_chain = (
        isinstance(model, keras.Model)
        and len(model.inputs or ()) == 1
        and len(model.outputs or ()) == 1
        and len(chain) > 0
        and isinstance(layers[0], keras.layers.InputLayer)
        and all(layer.input is previous.output for previous, layer in zip(layers, chain))
        and chain[-1].output is model.outputs[0]
    )
    if not is_chain:
        raise ValueError(
            "`model` must be a functional model whose layers form one chain from a token-id input to logits, "
            f"as `drill_lm` builds. Received: model={model!r}"
        )
    return chain


def _copy_layer(layer, copies):
    """A new layer from `layer`'s config, not stateful; a head keeps its tie to the copied embedding."""
    config = layer.get_config()
    if "stateful" in config:
        config["stateful"] = False
    if isinstance(layer, LabelHead) and layer.embedding is not None and id(layer.embedding) in copies:
        # from_config would give the head its own embedding: pass the copied one so the tie stays.
        config["embedding"] = copies[id(layer.embedding)]
        if "label_encoder" in config:  # one given to the head (the default is made when it builds)
            config["label_encoder"] = keras.saving.deserialize_keras_object(config["label_encoder"])
        return type(layer)(**config, label_ids=layer.label_ids)
    return type(layer).from_config(config)


def stateless_language_model(model):
    """A stateless copy of a (stateful) `drill_lm` model, with the same weights, for any batch shape.

    A stateful language model has a fixed batch shape `(batch_size, bptt)` and
    carries its LSTM state from one call to the next (truncated BPTT). The copy
    takes token ids `(B, T)` of any `B` and `T` and starts every call from zero
    state, so one text's prediction does not depend on what was read before:
    what scoring or serving a single text needs. Every layer is copied from its
    config with `stateful=False`, the DRILL head tied to the copied embedding,
    and the weights are copied, so the copy is a snapshot: it does not follow
    further training of `model`. On the same windows, the copy's logits equal
    those of `model` right after `reset_states`.

    Args:
        model: a `drill_lm` model (stateful or not), or any functional model
            whose layers form one chain from token ids to logits.

    Returns:
        A functional `keras.Model` from token ids `(None, None)` to logits
        `(None, None, |V|)`.

    Example:

    >>> import numpy as np
    >>> from keras_labelemb.models import drill_lm
    >>> model = drill_lm(30, batch_size=4, bptt=5, units=8, num_layers=1, depth=1)
    >>> copy = stateless_language_model(model)
    >>> tuple(copy(np.array([[3, 4, 5]])).shape)
    (1, 3, 30)
    """
    chain = _layer_chain(model)
    source = model.inputs[0]
    x = ids = keras.Input(shape=(None,), dtype=source.dtype, name=source.name)
    copies = {}
    for layer in chain:
        copies[id(layer)] = _copy_layer(layer, copies)
        x = copies[id(layer)](x)
    copy = keras.Model(ids, x, name=f"{model.name}_stateless")
    for layer in chain:
        copies[id(layer)].set_weights(layer.get_weights())
    return copy
