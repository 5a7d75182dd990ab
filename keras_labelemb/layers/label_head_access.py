"""The one way to reach a model's label head: find it, cut the model at its input, replace its label set."""

import weakref

import keras

from keras_labelemb.layers.label_head import LabelHead
from keras_labelemb.layers.walk_layers import walk_layers

# model -> {id(head): encoder}: repeated calls reuse one encoder (and its compiled
# predict function) instead of tracing a new one every time.
_ENCODERS = weakref.WeakKeyDictionary()


def find_label_head(model):
    """The `LabelHead` of `model` (GileHead, DrillHead, LinearHead, ...).

    With several label heads, the one that gives the model's only output;
    otherwise a `ValueError` lists them (pass `head=` where a function takes it).

    >>> import numpy as np
    >>> from keras_labelemb.models import gile_wan
    >>> model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, units=4, joint_dim=4)
    >>> find_label_head(model).name
    'gile_head'
    """
    if not isinstance(model, keras.Model):
        raise ValueError(f"`model` must be a keras.Model. Received: model={model!r}")
    # One entry per head: a wrapper (SampledLabelModel) reaches its model's head twice.
    heads = list({id(layer): layer for layer in walk_layers(model) if isinstance(layer, LabelHead)}.values())
    if not heads:
        raise ValueError(
            "`model` has no label head (a LabelHead such as GileHead, DrillHead or LinearHead). "
            f"Received: model={model.name!r}"
        )
    if len(heads) == 1:
        return heads[0]
    outputs = [id(output) for output in model.outputs] if len(model.outputs) == 1 else []
    giving_output = [head for head in heads if _single_output(head) in outputs]
    if len(giving_output) == 1:
        return giving_output[0]
    raise ValueError(
        f"`model` has several label heads ({[head.name for head in heads]}); pass the one to use as `head`. "
        f"Received: model={model.name!r}"
    )


def _single_output(layer):
    try:
        return id(layer.output)
    except (AttributeError, ValueError):  # called several times, or never
        return None


def split_at_head(model, head=None):
    """`(encoder, head)`: the model from its inputs to the head's input, and the head.

    The head (default `find_label_head(model)`) must be called once in
    `model`'s graph and give the model's only output: scores taken between the
    head and the output (an activation, say) would not be those
    `model.predict` returns. The encoder shares every weight with `model`;
    repeated calls return the same encoder. For a head that reads tokens
    (`head.reads_tokens`) the encoder outputs the document dict the head
    takes (`{"pooled": ..., "token_ids": ...}`).

    >>> import numpy as np
    >>> from keras_labelemb.models import gile_wan
    >>> model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, units=4, joint_dim=4)
    >>> encoder, head = split_at_head(model)
    >>> head.name, encoder.output.shape
    ('gile_head', (None, 4))
    """
    if head is None:
        head = find_label_head(model)
    elif not isinstance(head, LabelHead):
        raise ValueError(f"`head` must be a LabelHead of `model`. Received: head={head!r}")
    cached = _ENCODERS.setdefault(model, {})
    if id(head) in cached:
        return cached[id(head)], head
    try:
        head_input, head_output = head.input, head.output
        keys = getattr(head, "document_keys", None)
        if keys is not None:  # `input` flattens the document dict the head was called on, in key order
            flat = head_input if isinstance(head_input, list) else [head_input]
            head_input = dict(zip(keys, flat, strict=True))
    except (AttributeError, ValueError) as error:
        raise ValueError(
            "The label head must be called exactly once in `model`'s graph (a built functional or Sequential "
            f"model). Received: head={head.name!r} ({error})"
        ) from None
    if len(model.outputs) != 1 or model.outputs[0] is not head_output:
        raise ValueError(
            "The label head's output must be the model's only output. "
            f"Received: head={head.name!r} in a model with {len(model.outputs)} outputs"
            + ("" if len(model.outputs) != 1 else f" ({model.outputs[0].name!r} is not the head's output)")
        )
    cached[id(head)] = keras.Model(model.inputs, head_input, name=f"{model.name}_document_encoder")
    return cached[id(head)], head


def set_labels(model, label_ids):
    """Makes `model` score the labels described by `label_ids` `(L, Lw)` (token ids).

    Works on trained and compiled models: `find_label_head(model).set_labels`
    replaces the label set, and the model's compiled train/test/predict
    functions, which captured the old label set when traced, are rebuilt
    (Keras' `make_*_function(force=True)`).

    >>> import numpy as np
    >>> from keras_labelemb.models import gile_wan
    >>> model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, units=4, joint_dim=4)
    >>> model.predict(np.ones((1, 6), "int32"), verbose=0).shape
    (1, 2)
    >>> set_labels(model, np.array([[5, 6], [7, 0], [8, 9]]))
    >>> model.predict(np.ones((1, 6), "int32"), verbose=0).shape
    (1, 3)
    """
    head = find_label_head(model)
    head.set_labels(label_ids)
    wrapped = getattr(model, "model", None)  # a trainer wrapping the model (SampledLabelModel): both were compiled
    for compiled in [model] + ([wrapped] if isinstance(wrapped, keras.Model) else []):
        rebuild_compiled_functions(compiled)


def rebuild_compiled_functions(model):
    """Rebuilds the train/test/predict functions `model` has traced: they captured the label set of then."""
    for function, rebuild in (
        (model.train_function, model.make_train_function),
        (model.test_function, model.make_test_function),
        (model.predict_function, model.make_predict_function),
    ):
        if function is not None:
            rebuild(force=True)
