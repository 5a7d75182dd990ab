"""`LabelClassifier.tune_new_label_offset`: the grid search against a NumPy reference, `fit`'s call, bad input."""

import keras
import numpy as np
import pytest
from keras import ops
from sklearn.metrics import label_ranking_average_precision_score

from keras_labelemb.layers import HybridHead, LexicalMatchHead, LinearHead
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.tasks.new_label_offset import choose_offset, generalized_harmonic

VOCAB, POOLED, T, LABELS = 40, 6, 8, 6
RNG = np.random.default_rng(4)
DESCRIPTIONS = np.array([[2 + 2 * j, 3 + 2 * j] for j in range(LABELS)], "int32")


def documents(count):
    """Documents whose words are their labels' description words (plus noise), multi-hot targets."""
    targets = (RNG.random((count, LABELS)) < 0.3).astype("float32")
    targets[targets.sum(axis=1) == 0, 0] = 1
    ids = np.zeros((count, T), "int32")
    for i, row in enumerate(targets):
        words = [w for j in np.flatnonzero(row) for w in DESCRIPTIONS[j]] + list(RNG.integers(2, VOCAB, 2))
        ids[i, : min(T, len(words))] = words[:T]
    pooled = (targets @ RNG.normal(size=(LABELS, POOLED)) + RNG.normal(scale=0.5, size=(count, POOLED))).astype(
        "float32"
    )
    return {"pooled": pooled, "token_ids": ids}, targets


def classifier(rate=0.25):
    keras.utils.set_random_seed(3)
    embedding = keras.layers.Embedding(VOCAB, 4, mask_zero=True)
    components = [LexicalMatchHead(embedding, name="lexical"), LinearHead(LABELS, name="linear")]
    head = HybridHead(components, label_ids=DESCRIPTIONS, standardize=True, per_label_dropout=rate)
    inputs = {
        "pooled": keras.Input((POOLED,), name="pooled"),
        "token_ids": keras.Input((T,), dtype="int32", name="token_ids"),
    }
    model = LabelClassifier.from_model(keras.Model(inputs, head(inputs)))
    model.compile(keras.optimizers.Adam(0.05), metrics=[])
    return model


def z(scores):
    centred = scores - scores.mean(axis=1, keepdims=True)
    return centred / (np.sqrt((centred**2).mean(axis=1, keepdims=True)) + 1e-6)


def reference_logits(model, docs, new, offset):
    """NumPy: the z-scored lexical and linear parts (linear 0 for labels scored as new), weighed, plus the offset."""
    head = model.head
    lexical = ops.convert_to_numpy(head.component_logits(docs)["lexical"])
    linear = np.where(new, 0.0, ops.convert_to_numpy(head.components[1](docs["pooled"])))
    a, b = ops.convert_to_numpy(head.weights_by_component), float(ops.convert_to_numpy(head.bias))
    return a[0] * z(lexical) + a[1] * z(linear) + b + offset * new


def harmonic(targets, scores, new):
    def ap(relevant):
        keep = relevant.sum(axis=1) > 0
        return label_ranking_average_precision_score(relevant[keep], scores[keep])

    old, fresh = ap(targets * ~new), ap(targets * new)
    return 2 * old * fresh / (old + fresh)


def test_the_chosen_offset_is_the_best_of_the_grid_by_a_numpy_reference():
    docs, targets = documents(80)
    model = classifier()
    model.fit(docs, targets, epochs=3, batch_size=16, verbose=0)
    learned = float(ops.convert_to_numpy(model.head.unseen_offset))
    new = np.array([False, True, False, False, True, False])
    offset = model.tune_new_label_offset(docs, targets, new_labels=["label_1", "label_4"])
    assert float(ops.convert_to_numpy(model.head.unseen_offset)) == pytest.approx(offset)
    grid = learned + np.arange(-4, 4.001, 0.25)
    values = [harmonic(targets, reference_logits(model, docs, new, o), new) for o in grid]
    assert harmonic(targets, reference_logits(model, docs, new, offset), new) == pytest.approx(max(values), abs=1e-6)
    curve = model.new_label_offset_curve
    assert min(curve) <= learned - 4 + 1e-3 and max(curve) >= learned + 4 - 1e-3
    # The trained labels keep their scores: the offset moves only labels scored from descriptions.
    np.testing.assert_allclose(
        model.predict_logits(docs), reference_logits(model, docs, np.zeros(6, bool), 0), atol=1e-5
    )


def test_fit_with_validation_data_chooses_the_offset_on_it():
    docs, targets = documents(60)
    model = classifier()
    model.fit(docs, targets, epochs=2, batch_size=16, verbose=0)
    learned = float(ops.convert_to_numpy(model.head.unseen_offset))
    again = classifier()
    again.fit(docs, targets, epochs=2, batch_size=16, verbose=0, validation_data=(docs, targets))
    assert hasattr(again, "new_label_offset_curve")
    chosen = float(ops.convert_to_numpy(again.head.unseen_offset))
    assert chosen in again.new_label_offset_curve or any(abs(chosen - k) < 1e-4 for k in again.new_label_offset_curve)
    assert chosen != pytest.approx(learned)  # the grid's step is 0.25 away from a learned value


def test_choose_offset_widens_at_an_edge_and_ties_go_to_the_start():
    # A trained positive at 10, trained negatives at 1..9, the new positive at 0: each negative it passes helps,
    # up to 9 (past 10 the trained positive loses as much): the grid widens from +-4 twice.
    targets = np.zeros((1, 11))
    targets[0, [0, 10]] = 1
    logits = np.array([[10.0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]])
    new = np.zeros(11, bool)
    new[10] = True
    offset, curve = choose_offset([(targets, logits, new)], start=0.0)
    assert 9.0 < offset < 10.0 and max(curve) >= 12 and min(curve) == -4
    # Every offset in (-inf, inf) ties on this flat case: the start is chosen.
    flat = np.array([[1.0, 0.0, 0.0]])
    offset, _ = choose_offset([(np.array([[1.0, 0.0, 0.0]]), flat, np.array([False, True, False]))], start=0.5)
    assert offset == pytest.approx(0.5)


def test_generalized_harmonic_is_the_harmonic_mean_of_the_two_rankings():
    targets = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    scores = RNG.normal(size=(2, 4))
    new = np.array([False, False, True, True])
    assert generalized_harmonic(targets, scores, new) == pytest.approx(harmonic(targets, scores, new))


def test_bad_requests_are_refused_with_what_was_sent():
    docs, targets = documents(20)
    plain = classifier(rate=0.0)
    with pytest.raises(ValueError, match="per_label_dropout > 0"):
        plain.tune_new_label_offset(docs, targets)
    model = classifier()
    with pytest.raises(ValueError, match=r"\['wheat'\] are not among its labels"):
        model.tune_new_label_offset(docs, targets, new_labels=["wheat"])
    one_label = np.zeros_like(targets)
    one_label[:, 0] = 1
    with pytest.raises(ValueError, match="positives for 1 label"):
        model.tune_new_label_offset(docs, one_label)
