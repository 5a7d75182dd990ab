"""LabelClassifier.from_model: a Keras model built from layers, as the task (cut once at its head)."""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead, HierarchicalAttention, HybridHead, LexicalMatchHead, LinearHead, WideHead
from keras_labelemb.models import document_classifier, gile_wan, set_labels, wan
from keras_labelemb.tasks import LabelClassifier

LABEL_IDS = np.array([[2, 3], [4, 0], [5, 6]], "int32")
IDS = np.random.default_rng(0).integers(1, 30, (6, 6)).astype("int32")
TARGETS = np.eye(3, dtype="float32")[[0, 1, 2, 0, 1, 2]]


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_the_task_scores_as_the_model_trains_its_weights_and_round_trips(tmp_path):
    keras.utils.set_random_seed(0)
    model = gile_wan(30, LABEL_IDS, max_tokens=6, units=4, joint_dim=4)
    classifier = LabelClassifier.from_model(model, labels=["grain", "rates", "gold"])
    np.testing.assert_allclose(classifier.predict(IDS), sigmoid(model.predict(IDS, verbose=0)), atol=1e-6)
    before = keras.ops.convert_to_numpy(model.weights[0]).copy()
    classifier.fit(IDS, TARGETS, validation_data=(IDS, TARGETS), epochs=2, verbose=0)
    assert not np.array_equal(keras.ops.convert_to_numpy(model.weights[0]), before)  # the model's own weights
    np.testing.assert_allclose(classifier.predict(IDS), sigmoid(model.predict(IDS, verbose=0)), atol=1e-6)
    assert classifier.threshold_mode in ("per_label", "global")
    assert all(set(names) <= {"grain", "rates", "gold"} for names in classifier.predict_labels(IDS))
    classifier.save(tmp_path / "cut.keras")
    loaded = keras.saving.load_model(tmp_path / "cut.keras")
    assert loaded.cut_from_model and loaded.label_names == ["grain", "rates", "gold"]
    np.testing.assert_allclose(loaded.predict(IDS), classifier.predict(IDS), atol=1e-6)
    np.testing.assert_array_equal(loaded.thresholds, classifier.thresholds)


def test_a_wide_and_deep_model_reads_its_dict_of_inputs_and_a_linear_one_is_named():
    embedding = keras.layers.Embedding(30, 8, mask_zero=True)
    head = HybridHead([GileHead(embedding, joint_dim=3), LexicalMatchHead(embedding), WideHead(3)], LABEL_IDS)
    model = document_classifier(HierarchicalAttention("dense", 4, flat=True), head, max_tokens=6, num_features=5)
    classifier = LabelClassifier.from_model(model)
    x = {"token_ids": IDS, "features": np.random.default_rng(1).random((6, 5)).astype("float32")}
    np.testing.assert_allclose(classifier.predict(x), sigmoid(model.predict(x, verbose=0)), atol=1e-6)
    assert classifier.label_names == ["label_0", "label_1", "label_2"]
    linear = LabelClassifier.from_model(wan(30, 4, max_tokens=6, units=4), multi_label=False)
    assert np.allclose(linear.predict(IDS).sum(axis=1), 1.0, atol=1e-5)  # softmax


def test_what_cannot_be_cut_says_why():
    with pytest.raises(ValueError, match="has no label head"):
        LabelClassifier.from_model(keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]))
    with pytest.raises(ValueError, match="must be a keras.Model"):
        LabelClassifier.from_model("gile_wan")
    model = gile_wan(30, LABEL_IDS, max_tokens=6, units=4, joint_dim=4)
    with pytest.raises(ValueError, match="as many `labels` names"):
        LabelClassifier.from_model(model, labels=["grain", "rates"])
    with pytest.raises(ValueError, match="only output"):
        two = keras.Model(model.inputs, [model.output, model.output])
        LabelClassifier.from_model(two)
    inputs = keras.Input((4,))
    two_heads = keras.Model(inputs, [LinearHead(3, name="a")(inputs), LinearHead(2, name="b")(inputs)])
    with pytest.raises(ValueError, match=r"several label heads \(\['a', 'b'\]\)"):
        LabelClassifier.from_model(two_heads)
    after_head = keras.Model(inputs, keras.layers.Activation("sigmoid")(LinearHead(3)(inputs)))
    with pytest.raises(ValueError, match="model's only output"):
        LabelClassifier.from_model(after_head)
    with pytest.raises(ValueError, match="must be a LabelHead of `model`"):
        LabelClassifier.from_model(model, head="gile_head")


def test_the_cut_shares_the_models_head_and_one_encoder_per_model_and_head():
    model = gile_wan(30, LABEL_IDS, max_tokens=6, units=4, joint_dim=4)
    classifier = LabelClassifier.from_model(model)
    encoder, head = classifier.encoder, classifier.head
    assert isinstance(head, GileHead) and head is model.get_layer("gile_head")
    again = LabelClassifier.from_model(model)
    assert again.head is head and again.encoder is encoder  # one encoder per model and head, cut once
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(head(encoder(IDS))), keras.ops.convert_to_numpy(model(IDS)), atol=1e-6
    )
    assert classifier.document_encoder is encoder  # what a LabelIndex encodes queries with


def test_with_several_heads_the_one_giving_the_output_is_cut_and_another_is_refused():
    inputs = keras.Input((4,))
    inner, outer = LinearHead(3, name="inner"), LinearHead(2, name="outer")
    model = keras.Model(inputs, outer(keras.layers.Dense(4)(inner(inputs))))
    classifier = LabelClassifier.from_model(model)
    assert classifier.head is outer and classifier.label_names == ["label_0", "label_1"]
    x = np.random.default_rng(2).normal(size=(3, 4)).astype("float32")
    np.testing.assert_allclose(classifier.predict(x), sigmoid(model.predict(x, verbose=0)), atol=1e-6)
    with pytest.raises(ValueError, match="head='inner'.*is not the head's output"):
        LabelClassifier.from_model(model, head=inner)


def test_a_head_not_called_in_a_graph_or_in_a_nested_model_cannot_be_cut():
    class Subclassed(keras.Model):  # its head is called in `call`, never in a graph of layers
        def __init__(self):
            super().__init__()
            self.dense, self.head = keras.layers.Dense(4), LinearHead(3)

        def call(self, x):
            return self.head(self.dense(x))

    subclassed = Subclassed()
    subclassed(np.zeros((1, 4), "float32"))
    with pytest.raises(ValueError, match="must be called exactly once"):
        LabelClassifier.from_model(subclassed)
    # A model nested in another: the head is found (set_labels relabels it), but its output is the inner model's.
    model = gile_wan(30, LABEL_IDS, max_tokens=6, units=4, joint_dim=4)
    outer = keras.Sequential([keras.Input((6,), dtype="int32"), model])
    with pytest.raises(ValueError, match="head='gile_head'.*is not the head's output"):
        LabelClassifier.from_model(outer)
    set_labels(outer, LABEL_IDS[:2])
    assert model.get_layer("gile_head").num_labels == 2 and outer.predict(IDS, verbose=0).shape == (6, 2)


@pytest.mark.parametrize("jit_compile", [False, True], ids=["graph", "xla"])
def test_set_labels_on_a_compiled_model_that_already_predicted(jit_compile):
    """The compiled predict function captured the old label set; `set_labels(model, ...)` rebuilds it."""
    labels = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")
    model = gile_wan(40, labels, max_tokens=6, embedding_dim=6, units=6, joint_dim=5)
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), jit_compile=jit_compile)
    x = np.random.default_rng(11).integers(1, 40, size=(3, 6)).astype("int32")
    before = model.predict(x, verbose=0)
    new_labels = np.array([[6, 7, 8], [10, 11, 0], [12, 0, 0]], "int32")  # a known label first
    set_labels(model, new_labels)
    after = model.predict(x, verbose=0)
    assert after.shape == (3, 3)
    np.testing.assert_allclose(after[:, 0], before[:, 2], atol=1e-5)
    np.testing.assert_allclose(after, keras.ops.convert_to_numpy(model(x)), atol=1e-5)
    model.fit(x, np.ones((3, 3), "float32"), verbose=0)  # the train function follows the new label count
    with pytest.raises(ValueError, match="has no label head"):
        set_labels(keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]), new_labels)


def test_with_a_preprocessor_it_reads_raw_strings_and_relabels_from_descriptions():
    from keras_labelemb.tasks import LabelClassifierPreprocessor
    from keras_labelemb.text import TextVectorizer

    texts = ["wheat prices rose", "the bank cut rates", "gold mines closed"]
    vectorizer = TextVectorizer(max_tokens=6)
    vectorizer.adapt(texts + ["grain harvest", "interest"])
    labels = {"grain": "wheat grain harvest", "rates": "bank interest rates"}
    model = gile_wan(vectorizer.vocabulary_size, vectorizer.encode_labels(list(labels.values()), 4), max_tokens=6)
    classifier = LabelClassifier.from_model(model, LabelClassifierPreprocessor(vectorizer), labels=labels)
    ids = vectorizer(np.array(texts)).numpy()
    np.testing.assert_allclose(classifier.predict(texts), sigmoid(model.predict(ids, verbose=0)), atol=1e-6)
    classifier.set_labels({"gold": "gold mines"})  # zero-shot, from the string
    assert classifier.predict(texts).shape == (3, 1)


def test_a_cnle_model_as_the_task_trains_by_teacher_forcing_and_predicts_decoded_sets():
    from keras_labelemb.models import cnle

    keras.utils.set_random_seed(0)
    model = cnle(30, LABEL_IDS, max_tokens=6, max_steps=3, model_dim=8, num_heads=2, attention_dim=4)
    classifier = LabelClassifier.from_model(model, labels=["grain", "rates", "gold"])
    history = classifier.fit(IDS, TARGETS, validation_data=(IDS, TARGETS), epochs=2, verbose=0)
    assert "val_decoded_micro_f1" in history.history and np.isfinite(history.history["loss"]).all()
    sets = classifier.predict(IDS)
    assert set(np.unique(sets)) <= {0.0, 1.0}  # decoded sets, not scores
    np.testing.assert_array_equal(sets, model.predict(IDS, verbose=0))
    names = classifier.predict_labels(IDS)
    assert names == [[n for n, on in zip(classifier.label_names, row) if on] for row in sets]
    with pytest.raises(ValueError, match="no thresholds to tune"):
        classifier.tune_thresholds(IDS, TARGETS)


def test_the_task_trains_cnle_exactly_as_its_teacher_forcing_model():
    """The task's own step (teacher forcing in `call`) gives the weights `cnle_training_model` gives."""
    from keras_labelemb.losses.label_sequences import label_sequences
    from keras_labelemb.models import cnle
    from keras_labelemb.training.cnle_training import (
        cnle_optimizer,
        cnle_training_model,
        compile_cnle_training_model,
    )

    def fresh():
        keras.utils.set_random_seed(3)
        return cnle(30, LABEL_IDS, max_tokens=6, max_steps=3, model_dim=8, num_heads=2, attention_dim=4, dropout=0.0)

    reference = fresh()
    training = compile_cnle_training_model(cnle_training_model(reference), cnle_optimizer(8, warmup_steps=4))
    sequences = label_sequences(TARGETS, max_steps=3)
    reference_loss = training.fit(
        {"token_ids": IDS, "label_sequence": sequences}, sequences, batch_size=2, epochs=2, shuffle=False, verbose=0
    ).history["loss"]
    model = fresh()
    classifier = LabelClassifier.from_model(model, labels=["grain", "rates", "gold"])
    classifier.compile(optimizer=cnle_optimizer(8, warmup_steps=4))
    history = classifier.fit(IDS, TARGETS, batch_size=2, epochs=2, shuffle=False, verbose=0).history
    np.testing.assert_allclose(history["loss"], reference_loss, rtol=1e-5)
    for got, want in zip(model.weights, reference.weights, strict=True):  # the same builder: the same order
        np.testing.assert_allclose(keras.ops.convert_to_numpy(got), keras.ops.convert_to_numpy(want), atol=1e-5)
    np.testing.assert_array_equal(classifier.predict(IDS), reference.predict(IDS, verbose=0))


@pytest.mark.parametrize("as_dict", [False, True])
def test_scipy_sparse_features_train_and_score_as_the_keras_model(as_dict):
    """A wide path reads SciPy CSR tf-idf rows (seen_labels): the task fed them trains as `model.fit` does."""
    sparse = pytest.importorskip("scipy.sparse")
    rows = sparse.random(12, 9, density=0.3, format="csr", dtype="float32", random_state=0)
    targets = np.eye(3, dtype="float32")[np.arange(12) % 3]

    def built():
        keras.utils.set_random_seed(0)
        features = keras.Input((9,), sparse=True, name="features")
        inputs = {"features": features} if as_dict else features
        return keras.Model(inputs, WideHead(3, name="wide_head")(features))

    x = {"features": rows} if as_dict else rows
    plain, model = built(), built()
    plain.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    plain.fit(x, targets, epochs=2, batch_size=4, shuffle=False, verbose=0)
    classifier = LabelClassifier.from_model(model)
    classifier.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), metrics=None)
    classifier.fit(x, targets, epochs=2, batch_size=4, shuffle=False, verbose=0)
    for trained, expected in zip(model.weights, plain.weights):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(trained), keras.ops.convert_to_numpy(expected), atol=1e-6)
    np.testing.assert_allclose(classifier.predict_logits(x), plain.predict(x, verbose=0), atol=1e-5)
    assert classifier.predict(x[:0] if not as_dict else {"features": rows[:0]}).shape == (0, 3)


def test_soft_targets_train_as_the_keras_model_and_thresholds_want_0_and_1():
    """A listwise loss reads each document's positives sharing 1: `fit` takes such rows, as `model.fit` does."""
    shares = TARGETS / TARGETS.sum(axis=1, keepdims=True) * 0.5 + 0.25 * (1 - TARGETS)
    histories = []
    for use_task in (False, True):
        keras.utils.set_random_seed(0)
        model = gile_wan(30, LABEL_IDS, max_tokens=6, units=4, joint_dim=4)
        trainer = LabelClassifier.from_model(model) if use_task else model
        loss = keras.losses.CategoricalCrossentropy(from_logits=True)
        trainer.compile("adam", loss, **({"metrics": None} if use_task else {}))
        histories.append(trainer.fit(IDS, shares, epochs=2, batch_size=3, shuffle=False, verbose=0).history["loss"])
    np.testing.assert_allclose(histories[1], histories[0], rtol=1e-5)
    with pytest.raises(ValueError, match="0 and 1 only here"):
        trainer.fit(IDS, TARGETS, validation_data=(IDS, shares), epochs=1, verbose=0)
    with pytest.raises(ValueError, match="0 and 1 only here"):
        trainer.tune_thresholds(IDS, shares)
