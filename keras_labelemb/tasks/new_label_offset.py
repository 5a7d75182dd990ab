"""Choosing a `HybridHead`'s `unseen_offset` on validation data: where labels scored from descriptions alone rank."""

import numpy as np
from keras import ops
from sklearn.metrics import label_ranking_average_precision_score

STEP = 0.25
HALF_WIDTH = 4.0


def ranking_average_precision(relevant, scores):
    """LRAP over the documents with a relevant label (0 when none has one)."""
    keep = relevant.sum(axis=1) > 0
    if not keep.any():
        return 0.0
    return float(label_ranking_average_precision_score(relevant[keep], scores[keep]))


def generalized_harmonic(targets, scores, new):
    """Harmonic mean of the average precision of the `new` labels (a `(L,)` bool) and of the others, every label
    ranked together: the generalized zero-shot figure."""
    old = ranking_average_precision(targets * ~new, scores)
    fresh = ranking_average_precision(targets * new, scores)
    return 2 * old * fresh / (old + fresh) if old + fresh > 0 else 0.0


def choose_offset(simulations, start, widenings=5):
    """The offset with the best mean `generalized_harmonic` over `simulations` (`(targets, logits, new)`, logits
    scored at offset `start`), from `start` +- 4 in steps of 0.25; ties to the offset nearest `start`; an edge that
    reaches the best value widens the grid by 4 on that side, at most `widenings` times.

    Returns `(offset, {offset: value})`.
    """
    low, high = -HALF_WIDTH, HALF_WIDTH
    curve = {}
    for _ in range(widenings + 1):
        for step in np.arange(low, high + STEP / 2, STEP):
            step = round(float(step), 2)
            if step not in curve:
                values = [generalized_harmonic(t, logits + step * new, new) for t, logits, new in simulations]
                curve[step] = float(np.mean(values))
        top = max(curve.values())
        best = min((s for s, value in curve.items() if value == top), key=lambda s: (abs(s), s))
        # Widened where an edge reaches the best value (a tie there too: the best may lie beyond it).
        at_low, at_high = curve[round(low, 2)] == top, curve[round(high, 2)] == top
        if not (at_low or at_high):
            break
        low, high = low - HALF_WIDTH * at_low, high + HALF_WIDTH * at_high
    return start + best, {round(start + s, 4): v for s, v in sorted(curve.items())}


def _rows(inputs, start, stop):
    return {k: v[start:stop] for k, v in inputs.items()} if isinstance(inputs, dict) else inputs[start:stop]


def _to_numpy(structure):
    if isinstance(structure, dict):
        return {k: ops.convert_to_numpy(v) for k, v in structure.items()}
    return ops.convert_to_numpy(structure)


def _documents(classifier, x, batch_size=256):
    """What the head reads of `x`, in batches (NumPy), computed once: the encoder is the costly part."""
    data = classifier._keras_data(x, batch_size=batch_size)
    document = classifier._document_model()
    if "batch_size" in data:  # arrays (no preprocessor)
        inputs = data["x"]
        count = len(next(iter(inputs.values())) if isinstance(inputs, dict) else inputs)
        return [_to_numpy(document(_rows(inputs, i, i + batch_size))) for i in range(0, count, batch_size)]
    return [_to_numpy(document(ids)) for ids in data["x"]]  # a dataset of token ids (raw strings)


def _head_logits(head, batches, label_embeddings):
    parts = [ops.convert_to_numpy(head(rows, label_embeddings=label_embeddings)).astype("float32") for rows in batches]
    return np.concatenate(parts)


def tune_new_label_offset(classifier, x, y, new_labels=None, draws=8, seed=0, batch_size=None):
    """`LabelClassifier.tune_new_label_offset`: sets the head's `unseen_offset`; returns `(offset, curve)`."""
    head = classifier.head
    if not getattr(head, "per_label_dropout", 0):
        raise ValueError(
            "tune_new_label_offset chooses the offset of a HybridHead trained with per_label_dropout > 0 (the "
            f"minilm_generalized preset). Received: head={head.name!r} ({type(head).__name__}) without one"
        )
    targets = classifier._targets(y, len(y))
    names = classifier.label_names
    side = head._stored_label_embeddings()
    columns = ops.convert_to_numpy(side["columns"])
    if new_labels is not None:
        unknown = [n for n in new_labels if n not in names]
        if unknown or not new_labels:
            raise ValueError(
                "`new_labels` names labels of the classifier, to score as new ones. "
                f"Received: new_labels={new_labels!r}" + (f" ({unknown} are not among its labels)" if unknown else "")
            )
        chosen = [np.isin(names, list(new_labels))]
    else:
        has = np.flatnonzero((targets.sum(axis=0) > 0) & (columns >= 0))  # trained labels with a document
        if len(has) < 2:
            raise ValueError(
                "tune_new_label_offset needs validation documents of at least two labels (some scored as new, "
                f"the others as trained). Received: targets with positives for {len(has)} label(s)"
            )
        count = min(len(has) - 1, max(1, round(head.per_label_dropout * len(names))))
        rng = np.random.RandomState(seed)
        chosen = [np.isin(np.arange(len(names)), rng.choice(has, size=count, replace=False)) for _ in range(draws)]
    documents = _documents(classifier, x, batch_size or 256)
    start = float(ops.convert_to_numpy(head.unseen_offset))
    simulations = []
    for new in chosen:
        scored_as_new = {"components": side["components"], "columns": ops.convert_to_tensor(np.where(new, -1, columns))}
        simulations.append((targets, _head_logits(head, documents, scored_as_new), new))
    offset, curve = choose_offset(simulations, start)
    head.unseen_offset.assign(offset)
    return offset, curve
