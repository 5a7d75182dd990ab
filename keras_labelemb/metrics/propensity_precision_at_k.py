"""Propensity-scored precision at k (PSP@k) for extreme multi-label ranking."""

import numbers

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_positive_float
from keras_labelemb.metrics import _ranking


def label_propensities(label_counts, num_documents, a=0.55, b=1.5):
    """Propensity of each label (Jain, Prabhu & Varma 2016, section 3).

    The chance that a relevant label was actually annotated, estimated from
    how often it occurs in the training set:

        p_l = 1 / (1 + C exp(-A log(N_l + B))) = 1 / (1 + C (N_l + B)^-A)
        C   = (log N - 1) (B + 1)^A

    where `N_l` is the number of training documents tagged with label l and N
    the number of training documents. Frequent labels get propensities close
    to 1, rare labels small ones, so PSP@k rewards getting the tail right. The
    paper's constants are A = 0.55, B = 1.5 in general, A = 0.5, B = 0.4 for
    Wikipedia-derived and A = 0.6, B = 2.6 for Amazon-derived data sets.

    Args:
        label_counts: array (L,) of non-negative label frequencies `N_l`,
            e.g. `y_train.sum(axis=0)` for multi-hot training targets.
        num_documents: N, the number of training documents (>= every count).
            The formula is meant for data sets with many documents; when N is
            so small that some `1 + C (N_l + B)^-A` is not positive, a
            ValueError says so.
        a: A > 0, default 0.55.
        b: B > 0, default 1.5.

    Returns:
        float64 NumPy array (L,) of propensities `p_l > 0`; pass it to
        `PropensityPrecisionAtK`. (The inverse propensities `1 / p_l` are the
        per-label gains of PSP@k.)

    Example:

    >>> p = label_propensities(np.array([0, 10, 1000]), num_documents=10000)
    >>> np.round(p, 3)
    array([0.084, 0.22 , 0.767])
    """
    counts = np.asarray(label_counts, dtype="float64")
    if counts.ndim != 1 or counts.size == 0:
        raise ValueError(
            "`label_counts` must be a non-empty 1-D array with one count per label. "
            f"Received: label_counts with shape {counts.shape}"
        )
    if not np.all(np.isfinite(counts)) or counts.min() < 0:
        raise ValueError(
            "`label_counts` must be finite and non-negative. "
            f"Received: label_counts with min {counts.min()} and max {counts.max()}"
        )
    if (
        isinstance(num_documents, bool)
        or not isinstance(num_documents, numbers.Real)
        or not num_documents >= max(1.0, counts.max())
    ):
        raise ValueError(
            "`num_documents` must be a number >= 1 and >= the largest label count "
            f"({counts.max():g}). Received: num_documents={num_documents!r}"
        )
    a, b = check_positive_float("a", a), check_positive_float("b", b)
    c = (np.log(float(num_documents)) - 1.0) * (b + 1.0) ** a
    inverse = 1.0 + c * np.exp(-a * np.log(counts + b))
    if not np.all(inverse > 0):
        raise ValueError(
            "The propensity model gives non-positive inverse propensities for so few documents "
            f"(C = (log N - 1)(B + 1)^A = {c:.4g} < 0). Received: num_documents={num_documents!r}"
        )
    return 1.0 / inverse


def check_propensities(propensities, name="propensities"):
    """Returns propensities as a float64 (L,) array, or raises a ValueError naming `name`."""
    try:
        values = np.asarray(propensities, dtype="float64")
    except (TypeError, ValueError):
        raise ValueError(
            f"`{name}` must be an array of one positive number per label. Received: {name}={propensities!r}"
        ) from None
    if values.ndim != 1 or values.size == 0:
        raise ValueError(
            f"`{name}` must be a non-empty 1-D array, one propensity per label. "
            f"Received: {name} with shape {values.shape}"
        )
    if not np.all(np.isfinite(values)) or not np.all(values > 0):
        raise ValueError(
            f"`{name}` must be finite and > 0. Received: {name} with min {values.min()} and max {values.max()}"
        )
    return values


@keras.saving.register_keras_serializable(package="keras_labelemb")
class PropensityPrecisionAtK(keras.metrics.Metric):
    """Propensity-scored precision at k, PSP@k (Jain et al. 2016), streaming.

    Each relevant label retrieved in the top k counts its inverse propensity
    `1 / p_l` instead of 1, so retrieving a rare (low-propensity) label is
    worth more than retrieving a frequent one. For document i with relevant
    labels Y_i and scores s_i:

        PSP@k_i  = (1 / k) * sum_{l in top_k(s_i)} [l in Y_i] / p_l
        best@k_i = (1 / k) * sum of the k largest 1 / p_l over l in Y_i
                   (of all of them when |Y_i| < k)

    With `normalize=True` (default) the result is the convention of the
    Extreme Classification Repository's evaluation tools (and of `pyxclib`'s
    `psprecision`): the mean PSP@k divided by the mean best achievable PSP@k,

        PSP@k = sum_i w_i PSP@k_i / sum_i w_i best@k_i,

    a ratio of dataset-level sums, not a mean of per-document ratios, so it is
    1 exactly when every document retrieves its best achievable labels, and it
    streams over batches by keeping the two sums. With `normalize=False` it is
    the paper's unnormalised mean `(1 / N) sum_i PSP@k_i`, which can exceed 1.

    Documents with no relevant label add 0 to both sums: with
    `normalize=True` they do not change the value at all; with
    `normalize=False` they count as 0 in the mean, like `PrecisionAtK`. When
    no document has a relevant label the result is 0. When k > L only L labels
    can be retrieved and the divisor stays k. Ties: the top k are chosen by
    `keras.ops.top_k`, which prefers the lower label index among equal scores.
    Logits and probabilities give the same value.

    Args:
        propensities: array (L,) of label propensities `p_l > 0`, e.g. from
            `label_propensities(y_train.sum(axis=0), len(y_train))`.
        k: int >= 1, default 5. Number of top-scored labels.
        normalize: bool, default True. Divide by the best achievable PSP@k.
        name: string, default "psp_at_{k}" (normalised) or "raw_psp_at_{k}".
        dtype: dtype of the state and result, default `keras.config.floatx()`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` multi-hot
    (batch, L), `y_pred` scores (batch, L), `sample_weight` per document
    (batch,) or (batch, 1).

    Example:

    >>> m = PropensityPrecisionAtK(propensities=np.array([0.5, 0.25, 1.0]), k=1)
    >>> m.update_state(np.array([[1, 1, 0], [0, 0, 1]]),
    ...                np.array([[0.9, 0.5, 0.1], [0.3, 0.2, 0.8]]))
    >>> round(float(m.result()), 4)  # (2 + 1) / (4 + 1): document 0 could have had label 1
    0.6

    Reference: Jain, Prabhu & Varma, "Extreme Multi-label Loss Functions for
    Recommendation, Tagging, Ranking & Other Missing Label Applications",
    KDD 2016.
    """

    def __init__(self, propensities, k=5, normalize=True, name=None, dtype=None):
        k = _ranking.validate_k(k)
        normalize = bool(normalize)
        default_name = f"psp_at_{k}" if normalize else f"raw_psp_at_{k}"
        super().__init__(name=name or default_name, dtype=dtype)
        self.propensities = check_propensities(propensities)
        self.k = k
        self.normalize = normalize
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")
        self.best_total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="best_total")
        self.count = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="count")

    @property
    def num_labels(self):
        return self.propensities.shape[0]

    def update_state(self, y_true, y_pred, sample_weight=None):
        relevance, scores, num_labels = _ranking.prepare(y_true, y_pred, "float32")
        if num_labels != self.num_labels:
            raise ValueError(
                f"`propensities` has {self.num_labels} labels but `y_pred` has {num_labels}. "
                f"Received: y_pred with shape {tuple(scores.shape)}"
            )
        # Gains in float32 (float64 for a float64 metric): 1 / p_l can be
        # large, and the per-document sums are cast to the state dtype last.
        gain_dtype = "float64" if self.dtype == "float64" else "float32"
        inverse = ops.convert_to_tensor((1.0 / self.propensities).astype(gain_dtype))
        gains = ops.cast(relevance, gain_dtype) * inverse
        depth = min(self.k, num_labels)
        _, top = ops.top_k(scores, k=depth, sorted=True)
        retrieved = ops.sum(ops.take_along_axis(gains, top, axis=-1), axis=-1) / float(self.k)
        best, _ = ops.top_k(gains, k=depth, sorted=False)
        best = ops.sum(best, axis=-1) / float(self.k)
        weight = _ranking.document_weights(sample_weight, relevance, self.dtype)
        self.total.assign_add(ops.sum(weight * ops.cast(retrieved, self.dtype)))
        self.best_total.assign_add(ops.sum(weight * ops.cast(best, self.dtype)))
        self.count.assign_add(ops.sum(weight))

    def result(self):
        if self.normalize:
            return ops.divide_no_nan(self.total, self.best_total)
        return ops.divide_no_nan(self.total, self.count)

    def get_config(self):
        config = super().get_config()
        config.update({"propensities": self.propensities.tolist(), "k": self.k, "normalize": self.normalize})
        return config
