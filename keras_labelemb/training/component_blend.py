"""`choose_blend`: the mix of a two-component `HybridHead` (wide + deep, say) chosen on validation documents."""

import numpy as np

from keras_labelemb.argument_checks import check_bool
from keras_labelemb.evaluation.reports import sigmoid
from keras_labelemb.evaluation.thresholds import choose_threshold
from keras_labelemb.layers import HybridHead

DEFAULT_MIXES = tuple(np.round(np.linspace(0.0, 1.0, 21), 2))


def choose_blend(model, x_val, y_val, multi_label=True, mixes=DEFAULT_MIXES, batch_size=256):
    """Sets a two-component hybrid's weights to the mix that scores best on validation documents.

    For components trained apart (a deep model and the wide path, each until
    its best validation epoch) and put together in one `HybridHead`
    (`HybridHead([deep_head, WideHead(L)], ...)` with their weights), the
    logits become

        logits = m * z_1 / s_1 + (1 - m) * z_2 / s_2

    with `z_i` a component's logits, `s_i` their standard deviation over the
    validation documents and labels (so that the mix `m` weighs two scales
    alike: squared-hinge and cross-entropy logits differ by an order of
    magnitude) and `m` the value of `mixes` with the best validation
    micro-F1 at its best threshold (multi-label) or accuracy (single-label);
    ties keep the smaller `m`. The hybrid's bias is set to 0 (each component
    keeps its own). Nothing else changes: the model then saves, exports and
    serves as any hybrid. Jointly trained from a warm-started wide path, the
    deep path learned little on Reuters (the wide path already fits the
    training documents); chosen on validation, the mix of the two does not
    need it to.

    Args:
        model: a model whose label head is a `HybridHead` of two components.
        x_val, y_val: validation inputs and targets (multi-hot, or class ids
            / one-hot when single-label).
        multi_label: micro-F1 at a chosen threshold (True) or accuracy.
        mixes: the values of `m` tried, in [0, 1].
        batch_size: of the validation predictions.

    Returns:
        `{"mix", "val_score", "scales", "threshold"}` (threshold None when single-label).
    """
    multi_label = check_bool("multi_label", multi_label)
    from keras_labelemb.tasks.label_classifier import LabelClassifier

    head = model.head if isinstance(model, LabelClassifier) else LabelClassifier.from_model(model).head
    if not isinstance(head, HybridHead) or len(head.components) != 2:
        raise ValueError(
            "choose_blend mixes the two components of a HybridHead (a deep head and the wide path, say). "
            f"Received: a model whose head is {type(head).__name__} {head.name!r}"
        )
    mixes = [float(m) for m in mixes]
    if not mixes or any(not 0.0 <= m <= 1.0 for m in mixes):
        raise ValueError(f"`mixes` must be values in [0, 1]. Received: mixes={mixes}")
    head.bias.assign(np.zeros(head.bias.shape, head.bias.dtype))
    parts = []
    for one_hot in ([1.0, 0.0], [0.0, 1.0]):  # each component's logits, through the model as it serves
        head.weights_by_component.assign(np.array(one_hot, head.weights_by_component.dtype))
        parts.append(np.asarray(model.predict(x_val, batch_size=batch_size, verbose=0), "float64"))
    scales = [float(p.std()) or 1.0 for p in parts]
    y_val = np.asarray(y_val)
    best = None
    for mix in mixes:
        logits = mix * parts[0] / scales[0] + (1.0 - mix) * parts[1] / scales[1]
        if multi_label:
            threshold, score = choose_threshold(y_val, sigmoid(logits))
        else:
            classes = y_val.argmax(axis=-1) if y_val.ndim == 2 else y_val
            threshold, score = None, float((logits.argmax(axis=-1) == classes).mean())
        if best is None or score > best["val_score"]:
            best = {"mix": mix, "val_score": score, "scales": scales, "threshold": threshold}
    head.weights_by_component.assign(
        np.array([best["mix"] / scales[0], (1.0 - best["mix"]) / scales[1]], head.weights_by_component.dtype)
    )
    return best
