"""The simple baselines every result stands beside, computed in the same run on the same data.

- `tuned_linear_svc`: tf-idf LinearSVC with C and the n-gram range chosen on validation
  (multi-label: one-vs-rest with the decision threshold chosen on validation, as for the
  networks; multi-class: argmax).
- `tfidf_match_scores`, `embedding_cosine_scores`: untrained zero-shot scorers that match a
  document's words against each label description's words.
- `random_ranking_expectation`: the exact expected ranking metrics of a random ranking.
"""

import time

import keras
import numpy as np

from keras_labelemb.evaluation import choose_threshold, classification_report
from keras_labelemb.layers.hybrid_head import standardize_over_labels

C_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)
NGRAM_GRID = ((1, 1), (1, 2), (1, 3))
# LinearSVC decision values: the validation threshold is searched on this grid.
SVM_THRESHOLDS = np.arange(-1.0, 0.51, 0.05)


def _tfidf(ngram_range):
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(ngram_range=ngram_range, min_df=2, sublinear_tf=True)


def tuned_linear_svc(train_texts, y_train, val_texts, y_val, multi_label, c_grid=C_GRID, ngram_grid=NGRAM_GRID):
    """Fits a tf-idf LinearSVC for every (n-gram range, C) and keeps the best on validation.

    Where an n-gram range's best C is at the edge of `c_grid`, its grid is widened there by 3x steps
    (within 1e-3 .. 1e3) until it is not.

    Args:
        train_texts, val_texts: lists of str.
        y_train, y_val: multi-hot `(N, L)` if `multi_label`, else class ids `(N,)`.
        multi_label: one-vs-rest with a validation-tuned threshold (every document gets at least
            its top label), selected on validation micro-F1; else multi-class, on accuracy.

    Returns:
        `(decision, info)`: `decision(texts)` gives `(N, L)` decision values of the selected model
        (a label without a training positive scores below every other label); `info` holds the
        chosen `C`, `ngram_range`, `threshold` (multi-label), validation score, the whole grid and seconds.
    """
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    start = time.time()
    best, grid = None, []
    for ngram_range in ngram_grid:
        tfidf = _tfidf(ngram_range)
        x_train = tfidf.fit_transform(train_texts)
        x_val = tfidf.transform(val_texts)
        cs, tried = list(c_grid), {}
        while len(tried) < len(cs):
            c = cs[len(tried)]
            if multi_label:
                model = OneVsRestClassifier(LinearSVC(C=c), n_jobs=2).fit(x_train, y_train)
                untrained = np.asarray(y_train).sum(axis=0) == 0
                scores = _masked_decision(model, x_val, untrained)
                threshold, score = choose_threshold(y_val, scores, SVM_THRESHOLDS)
            else:
                model = LinearSVC(C=c).fit(x_train, y_train)
                untrained, threshold = None, None
                score = float((model.predict(x_val) == np.asarray(y_val)).mean())
            grid.append({"ngram_range": list(ngram_range), "C": c, "val_score": score})
            tried[c] = score
            if best is None or score > best[0]:
                best = (score, ngram_range, c, tfidf, model, untrained, threshold)
            if len(tried) == len(cs) and len(c_grid) > 1:  # a best C at the grid's edge: widen it there
                top = max(tried, key=lambda c: (tried[c], -abs(np.log(c))))  # ties: the C nearest 1
                if top == max(tried) and top < 1e3:
                    cs.append(top * 3.0)
                elif top == min(tried) and top > 1e-3:
                    cs.append(top / 3.0)
    score, ngram_range, c, tfidf, model, untrained, threshold = best

    def decision(texts):
        x = tfidf.transform(texts)
        if multi_label:
            return _masked_decision(model, x, untrained)
        scores = model.decision_function(x)
        return np.stack([-scores, scores], axis=1) if scores.ndim == 1 else scores  # two classes: one column

    info = {
        "C": c,
        "ngram_range": list(ngram_range),
        "val_score": score,
        "selected_on": "validation micro-F1" if multi_label else "validation accuracy",
        "grid": grid,
        "features": len(tfidf.vocabulary_),
        "seconds": round(time.time() - start, 1),
    }
    if multi_label:
        info.update(threshold=threshold, labels_without_training_documents=int(untrained.sum()))
    return decision, info


def _masked_decision(model, x, untrained):
    # scikit-learn answers a label with no training positive with a constant 0.0, which outranks
    # every real (mostly negative) score; such a label gets the lowest score instead.
    scores = model.decision_function(x)
    if untrained.any():
        scores[:, untrained] = scores.min() - 1.0
    return scores


def tuned_svm(train_texts, y_train, val_texts, y_val, test_texts, y_test, multi_label, **grid):
    """The benchmarks' one SVM runner: `tuned_linear_svc` (with `grid`: `c_grid`, `ngram_grid`), scored on test.

    Returns `(decision, report)`: the selected model's decision function, and its test scores with the
    selection (`info` of `tuned_linear_svc`): multi-label (`y_*` multi-hot), the `classification_report` at the
    validation threshold; else (`y_*` class ids) `accuracy` and `error` of the top class.
    """
    decision, info = tuned_linear_svc(train_texts, y_train, val_texts, y_val, multi_label, **grid)
    scores = decision(test_texts)
    if multi_label:
        report = classification_report(y_test, scores, info["threshold"])
    else:
        accuracy = float((scores.argmax(axis=1) == np.asarray(y_test)).mean())
        report = {"accuracy": accuracy, "error": 1.0 - accuracy}
    report.update({k: v for k, v in info.items() if k != "grid"}, grid=info["grid"])
    return decision, report


def svm_on(data, multi_label, **grid):
    """`tuned_svm` on a `TextClassificationData` with a validation split (`data.validation_split(...)`):
    multi-hot targets when `multi_label`, else each document's (one) label id. Returns `(decision, report)`."""
    splits = ("train", "val", "test")
    texts = [getattr(data, f"{split}_texts") for split in splits]
    y = [data.multi_hot(split) if multi_label else data.multi_hot(split).argmax(axis=1) for split in splits]
    return tuned_svm(texts[0], y[0], texts[1], y[1], texts[2], y[2], multi_label, **grid)


def tfidf_match_scores(fit_texts, documents, label_descriptions):
    """Untrained lexical zero-shot scores: tf-idf cosine between each document and each label description.

    The tf-idf weights (vocabulary, idf) are fitted on `fit_texts` (the training documents; no labels
    are used). Returns `(len(documents), len(label_descriptions))` cosines.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    tfidf = TfidfVectorizer(sublinear_tf=True).fit(list(fit_texts) + list(label_descriptions))
    docs, labels = tfidf.transform(documents), tfidf.transform(label_descriptions)
    return np.asarray((docs @ labels.T).todense())  # rows are L2-normalised: products are cosines


def embedding_cosine_scores(document_ids, label_ids, vectors):
    """Untrained embedding zero-shot scores: cosine of mean word vectors (id 0 = padding, left out).

    Args:
        document_ids: `(N, ...)` token ids (any number of trailing axes, e.g. sentences x words).
        label_ids: `(L, Lw)` token ids of the label descriptions.
        vectors: `(V, d)` word vectors.
    """

    def mean_vectors(ids):
        ids = np.asarray(ids).reshape(len(ids), -1)
        counts = np.maximum((ids > 0).sum(axis=1, keepdims=True), 1)
        summed = np.zeros((len(ids), vectors.shape[1]))
        for row, row_ids in enumerate(ids):  # a loop keeps memory at one (tokens, d) block
            summed[row] = vectors[row_ids[row_ids > 0]].sum(axis=0)
        means = summed / counts
        return means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)

    return mean_vectors(document_ids) @ mean_vectors(label_ids).T


def random_ranking_expectation(y_true):
    """Exact expected ranking loss, average precision (LRAP) and one-error of a uniformly random ranking.

    Over the documents with at least one relevant label (as `ranking_report`). For a document with
    `r` relevant labels among `L`: ranking loss 1/2 (0 when `r = L`); one-error `1 - r/L`; average
    precision `(H_L + (r-1)/(L-1) (L - H_L)) / L` with `H_L` the L-th harmonic number (a relevant
    label at rank k has on average `(r-1)(k-1)/(L-1)` relevant labels above it).
    """
    y_true = np.asarray(y_true)
    y_true = y_true[y_true.sum(axis=1) > 0]
    num_labels = y_true.shape[1]
    relevant = y_true.sum(axis=1).astype("float64")
    harmonic = np.sum(1.0 / np.arange(1, num_labels + 1))
    if num_labels > 1:
        average_precision = (harmonic + (relevant - 1) / (num_labels - 1) * (num_labels - harmonic)) / num_labels
    else:
        average_precision = np.ones_like(relevant)
    return {
        "ranking_loss": float(np.mean(np.where(relevant < num_labels, 0.5, 0.0))),
        "label_ranking_average_precision": float(average_precision.mean()),
        "one_error": float(np.mean(1.0 - relevant / num_labels)),
        "documents": int(len(y_true)),
    }


def blend_scores(learned, lexical, weight):
    """`(1 - weight)` × learned + `weight` × lexical, each z-scored over a document's labels.

    The z-scores of `HybridHead(standardize=True)` (`standardize_over_labels`): this blend is that hybrid's
    logits with weights `(1 - weight, weight)`, over scores computed once.
    """
    z = (1.0 - weight) * standardize_over_labels(learned) + weight * standardize_over_labels(lexical)
    return keras.ops.convert_to_numpy(z)


def choose_blend_weight(y_true, learned, lexical, weights=np.linspace(0.0, 1.0, 11)):
    """The blend weight with the best average precision (LRAP) on `y_true`, e.g. seen labels on validation.

    Zero-shot use: choose it on the seen labels' validation documents, never on the unseen labels.
    Returns `(weight, {weight: average precision})`.
    """
    from sklearn.metrics import label_ranking_average_precision_score

    y_true = np.asarray(y_true)
    keep = y_true.sum(axis=1) > 0
    curve = {
        round(float(w), 3): float(
            label_ranking_average_precision_score(y_true[keep], blend_scores(learned[keep], lexical[keep], w))
        )
        for w in weights
    }
    return max(curve, key=curve.get), curve
