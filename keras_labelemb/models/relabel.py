"""A built model's label head, found once: `set_labels(model, label_ids)` relabels it."""

import keras

from keras_labelemb.layers.label_head import LabelHead
from keras_labelemb.layers.walk_layers import walk_layers


def set_labels(model, label_ids):
    """Makes a model you built (`gile_wan(...)`, say) score the labels described by `label_ids` `(L, Lw)`.

    Works on trained and compiled models: the head's label set is replaced and the model's compiled
    train/test/predict functions, which captured the old set when traced, are rebuilt. The model's label head
    (with several, the one that gives the model's output) is relabelled. (A `LabelClassifier` relabels from
    strings: `classifier.set_labels({name: description})`.)

    >>> import numpy as np
    >>> from keras_labelemb.models import gile_wan
    >>> model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, units=4, joint_dim=4)
    >>> set_labels(model, np.array([[5, 6], [7, 0], [8, 9]]))
    >>> model.predict(np.ones((1, 6), "int32"), verbose=0).shape
    (1, 3)
    """
    output_label_head(model).set_labels(label_ids)
    rebuild_compiled_functions(model)


def output_label_head(model):
    """The `LabelHead` of `model`; with several (a hybrid's components are heads too), the one that gives the
    model's only output. What `set_labels` relabels and where `LabelClassifier.from_model` cuts."""
    if not isinstance(model, keras.Model):
        raise ValueError(f"`model` must be a keras.Model. Received: model={model!r:.200}")
    heads = list({id(layer): layer for layer in walk_layers(model) if isinstance(layer, LabelHead)}.values())
    if not heads:
        raise ValueError(
            "`model` has no label head (a LabelHead such as GileHead, DrillHead or LinearHead). "
            f"Received: model={model.name!r}"
        )
    if len(heads) == 1:
        return heads[0]
    outputs = [id(output) for output in model.outputs] if len(model.outputs) == 1 else []
    giving_output = [head for head in heads if _output_id(head) in outputs]
    if len(giving_output) == 1:
        return giving_output[0]
    raise ValueError(
        f"`model` has several label heads ({[head.name for head in heads]}) and none gives its only output; "
        f"pass the one to use as `head` where a function takes it. Received: model={model.name!r}"
    )


def rebuild_compiled_functions(model):
    """Rebuilds the train/test/predict functions `model` has traced: they captured the label set of then."""
    for function, rebuild in (
        (model.train_function, model.make_train_function),
        (model.test_function, model.make_test_function),
        (model.predict_function, model.make_predict_function),
    ):
        if function is not None:
            rebuild(force=True)


def _output_id(layer):
    try:
        return id(layer.output)
    except (AttributeError, ValueError):  # called several times, or never
        return None
