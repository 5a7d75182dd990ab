"""The wide + deep recipe a `LabelClassifier` runs when its head mixes a deep head with a `WideHead`.

Measured in `benchmarks/seen_labels.py` (the "blend" rows): the wide path is
the tuned tf-idf SVM itself (a convex problem, solved by scikit-learn), the
deep path is trained apart, and the two are mixed on validation documents.
"""

import joblib
import numpy as np
import tensorflow as tf

from keras_labelemb.evaluation.thresholds import choose_threshold
from keras_labelemb.layers import HybridHead, WideHead

# The SVM's C, chosen on validation documents (benchmarks.baselines.C_GRID); widened where the choice is at an edge.
C_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)
DEFAULT_C = 1.0
MIXES = tuple(np.round(np.linspace(0.0, 1.0, 21), 2))
# The n-gram lengths of the wide path's features, chosen on validation (benchmarks.baselines.NGRAM_GRID).
NGRAMS = (1, 2, 3)


def wide_component(head):
    """The `WideHead` of a `HybridHead` of two components (one deep, one wide), or None."""
    if not isinstance(head, HybridHead) or len(head.components) != 2:
        return None
    wide = [i for i, component in enumerate(head.components) if isinstance(component, WideHead)]
    return wide[0] if len(wide) == 1 else None


def sparse_rows(features, texts, batch_size=512):
    """The tf-idf features of `texts` as one SciPy CSR matrix, `batch_size` texts at a time."""
    import scipy.sparse

    def csr(sparse):
        if not isinstance(sparse, tf.SparseTensor):  # a dense TfidfVectorizer (sparse=False)
            return scipy.sparse.csr_matrix(sparse.numpy())
        sparse = tf.sparse.reorder(sparse)
        rows, columns = sparse.indices.numpy().T
        return scipy.sparse.csr_matrix(
            (sparse.values.numpy(), (rows, columns)), shape=tuple(sparse.dense_shape.numpy())
        )

    blocks = [csr(features.vectorize(tf.constant(texts[i : i + batch_size]))) for i in range(0, len(texts), batch_size)]
    return scipy.sparse.vstack(blocks, "csr")


def _svm(x, y, c, multi_label):
    """`(kernel (F, L), bias (L,))` of linear SVMs on `x`: one per label (multi-label) or one-vs-rest over classes.

    A label with no positive (or no negative) training document gets a constant score of -1 (or +1).
    """
    from sklearn.svm import LinearSVC

    count = y.shape[1]
    kernel = np.zeros((x.shape[1], count), "float32")
    bias = np.zeros(count, "float32")
    if not multi_label:
        classes = y.argmax(axis=1)
        present = np.unique(classes)
        if len(present) < 2:
            bias[:] = -1.0
            bias[present] = 1.0
            return kernel, bias
        svm = LinearSVC(C=c, max_iter=5000).fit(x, classes)
        coef, intercept = svm.coef_, svm.intercept_
        if len(present) == 2:  # scikit-learn's binary case: one hyperplane, for the second class
            coef, intercept = np.stack([-coef[0], coef[0]]), np.array([-intercept[0], intercept[0]])
        bias[:] = -1e3  # classes never seen in training are never predicted
        kernel[:, present], bias[present] = coef.T, intercept
        return kernel, bias

    def one(label):
        column = y[:, label]
        if column.min() == column.max():
            bias[label] = 1.0 if column[0] > 0 else -1.0
            return
        svm = LinearSVC(C=c, max_iter=5000).fit(x, column.astype("int32"))
        kernel[:, label], bias[label] = svm.coef_[0], svm.intercept_[0]

    # liblinear releases the GIL: threads share `x` without copying it.
    joblib.Parallel(n_jobs=-1, prefer="threads")(joblib.delayed(one)(label) for label in range(count))
    return kernel, bias


def _score(y, logits, multi_label):
    if multi_label:
        return choose_threshold(y, 1.0 / (1.0 + np.exp(-logits)))[1]
    return float((logits.argmax(axis=1) == y.argmax(axis=1)).mean())


def solve_wide_path(x_train, y_train, x_val=None, y_val=None, multi_label=True):
    """The wide path as linear SVMs on the training features: `{"C", "val_score", "kernel" (F, L), "bias" (L,)}`.

    `C` is chosen on the validation features (micro-F1 at its best threshold,
    or accuracy) from `C_GRID`, widened by 3x steps where the best is at an
    edge (ties keep the `C` nearest `DEFAULT_C`); without validation data it
    is `DEFAULT_C` (and `val_score` None).
    """
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise ValueError(
            "The wide path is solved by scikit-learn's LinearSVC: `pip install scikit-learn`. "
            "Received: a wide + deep classifier without scikit-learn installed"
        ) from None
    y_train = np.asarray(y_train, "float32")
    if x_val is None:
        kernel, bias = _svm(x_train, y_train, DEFAULT_C, multi_label)
        return {"C": DEFAULT_C, "val_score": None, "kernel": kernel, "bias": bias}
    tried = {}

    def attempt(c):
        kernel, bias = _svm(x_train, y_train, c, multi_label)
        score = _score(np.asarray(y_val), np.asarray(x_val @ kernel) + bias, multi_label)
        tried[c] = {"C": c, "val_score": score, "kernel": kernel, "bias": bias}

    for c in C_GRID:
        attempt(c)
    while True:  # a choice at the grid's edge: the grid is widened there (by 3x steps, within 1e-3 .. 1e3)
        # Ties keep the C nearest the usual default (a grid of equal scores does not walk to an edge).
        best = max(tried.values(), key=lambda entry: (entry["val_score"], -abs(np.log(entry["C"] / DEFAULT_C))))
        low, high = min(tried), max(tried)
        if best["C"] == high and high < 1e3:
            attempt(high * 3.0)
        elif best["C"] == low and low > 1e-3:
            attempt(low / 3.0)
        else:
            return best


def fit_wide_path(wide, x_train, y_train, x_val=None, y_val=None, multi_label=True):
    """`solve_wide_path`, then `wide`'s weights set to it; returns `{"C", "val_score"}`."""
    solved = solve_wide_path(x_train, y_train, x_val, y_val, multi_label)
    set_wide_weights(wide, solved, x_train.shape[1])
    return {"C": solved["C"], "val_score": solved["val_score"]}


def set_wide_weights(wide, solved, num_features):
    if not wide.built:
        wide.build((None, num_features))
    wide.set_weights([solved["kernel"], solved["bias"]])


def choose_features(features, texts, y_train, val_texts=None, y_val=None, multi_label=True, ngrams=NGRAMS):
    """Adapts `features` (a `TfidfVectorizer`) with the n-gram length whose SVM scores best on validation.

    Each length of `ngrams` is adapted to `texts` and solved (`solve_wide_path`);
    `features` keeps the best one's terms. Without validation texts, its own
    `ngrams` (already adapted). Returns `solve_wide_path`'s dict with `"ngrams"`.
    """
    if val_texts is None:
        solved = solve_wide_path(sparse_rows(features, texts), y_train, multi_label=multi_label)
        return {**solved, "ngrams": features.ngrams}
    best = None
    for n in ngrams:
        features.ngrams = n
        features.adapt(texts)
        solved = solve_wide_path(
            sparse_rows(features, texts), y_train, sparse_rows(features, val_texts), y_val, multi_label
        )
        if best is None or solved["val_score"] > best["val_score"]:  # ties: the shorter n-grams
            best = {**solved, "ngrams": n, "terms": features.get_vocabulary(), "idf": features.idf}
    features.ngrams = best["ngrams"]
    features.set_vocabulary(best.pop("terms"), best.pop("idf"))
    return best


def choose_mix(parts, y, multi_label=True, mixes=MIXES):
    """The mix `m` of two components' logits `parts` that scores best on validation targets `y`.

        logits = m * z_1 / s_1 + (1 - m) * z_2 / s_2

    with `s_i` the standard deviation of component `i`'s logits (squared-hinge
    and cross-entropy logits differ by an order of magnitude); ties keep the
    smaller `m`. Returns `{"mix", "val_score", "weights": [m / s_1, (1 - m) / s_2]}`.
    """
    parts = [np.asarray(p, "float64") for p in parts]
    scales = [float(p.std()) or 1.0 for p in parts]
    y = np.asarray(y)
    best = None
    for mix in mixes:
        score = _score(y, mix * parts[0] / scales[0] + (1.0 - mix) * parts[1] / scales[1], multi_label)
        if best is None or score > best["val_score"]:
            best = {"mix": float(mix), "val_score": score}
    best["weights"] = [best["mix"] / scales[0], (1.0 - best["mix"]) / scales[1]]
    return best
