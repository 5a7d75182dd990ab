"""Replacing the label set of a trained model (zero-shot)."""

from keras_labelemb.layers import DrillHead, GileHead


def label_heads(model):
    """Every head scoring labels from descriptions (`GileHead`, `DrillHead`) inside `model`, nested ones included."""
    return [
        layer for layer in model._flatten_layers(include_self=False)
        if isinstance(layer, GileHead) or (isinstance(layer, DrillHead) and layer.label_source == "descriptions")
    ]


def set_labels(model, label_ids):
    """Makes `model` score the labels described by `label_ids` `(L, Lw)`.

    Works on trained models: the joint heads have no per-label weights, so new
    labels are scored from their descriptions. The model's compiled
    predict/evaluate/train functions are dropped so the next call traces with
    the new label count.

    >>> import numpy as np
    >>> from keras_labelemb.models import gile_wan
    >>> model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, encoder_units=4, joint_dim=4)
    >>> set_labels(model, np.array([[5, 6], [7, 0], [8, 9]]))
    >>> model.predict(np.ones((1, 6), "int32"), verbose=0).shape
    (1, 3)
    """
    heads = label_heads(model)
    if not heads:
        raise ValueError(f"`model` has no GileHead or description-based DrillHead whose labels could be replaced. Received: model={model.name!r}")
    for head in heads:
        head.set_labels(label_ids)
    model.train_function = model.test_function = model.predict_function = None
