"""The LabelHead protocol: the label set as data, call-time labels, and the one way to reach a model's head."""

import json
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest
from keras import ops

from keras_labelemb.layers import DrillHead, GileHead, HierarchicalAttention, LabelHead, LinearHead
from keras_labelemb.models import document_classifier, find_label_head, set_labels, split_at_head

RNG = np.random.default_rng(11)
LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")


def small_model(head="gile"):
    return document_classifier(
        40,
        LABELS,
        flat=True,
        max_tokens=6,
        embedding_dim=6,
        encoder_units=6,
        head={"type": head, "joint_dim": 5} if head == "gile" else head,
    )


def test_every_head_is_a_label_head():
    embedding = keras.layers.Embedding(40, 6, mask_zero=True)
    heads = [GileHead(embedding, LABELS, joint_dim=5), DrillHead(embedding, LABELS, depth=1), LinearHead(4)]
    assert all(isinstance(head, LabelHead) for head in heads)
    assert [head.scores_label_sets for head in heads] == [True, True, False]


def test_huge_label_set_stays_out_of_the_config_and_round_trips_in_a_fresh_process(tmp_path):
    """26,104 labels x 35 tokens (BioASQ-sized): a few-KB config; the .keras file keeps the label set exactly."""
    labels = RNG.integers(1, 30_000, size=(26_104, 35)).astype("int32")
    embedding = keras.layers.Embedding(30_000, 4, mask_zero=True)
    inputs = keras.Input((6,), dtype="int32")
    document = HierarchicalAttention("dense", 4, flat=True)(embedding(inputs))
    head = GileHead(embedding, labels, joint_dim=8)
    model = keras.Model(inputs, head(document))
    config_bytes = len(json.dumps(keras.saving.serialize_keras_object(head)))
    assert config_bytes < 10_000, config_bytes
    x = RNG.integers(1, 30_000, size=(2, 6)).astype("int32")
    expected = model.predict(x, verbose=0)
    model.save(tmp_path / "huge.keras")
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "expected.npy", expected)
    script = textwrap.dedent(f"""
        import numpy as np, keras
        import keras_labelemb  # registers the layers
        model = keras.saving.load_model({str(tmp_path / "huge.keras")!r})
        x = np.load({str(tmp_path / "x.npy")!r})
        np.testing.assert_array_equal(model.predict(x, verbose=0), np.load({str(tmp_path / "expected.npy")!r}))
        assert model.layers[-1].label_ids.shape == (26104, 35)
        print("same")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "same" in result.stdout, result.stderr[-2000:]


def test_set_labels_on_a_compiled_model_that_already_predicted():
    """The compiled predict function captured the old label set; `set_labels(model, ...)` rebuilds it."""
    model = small_model()
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), jit_compile=True)
    x = RNG.integers(1, 40, size=(3, 6)).astype("int32")
    before = model.predict(x, verbose=0)
    new_labels = np.array([[6, 7, 8], [10, 11, 0], [12, 0, 0]], "int32")  # a known label first
    set_labels(model, new_labels)
    after = model.predict(x, verbose=0)
    assert after.shape == (3, 3)
    np.testing.assert_allclose(after[:, 0], before[:, 2], atol=1e-5)
    np.testing.assert_allclose(after, ops.convert_to_numpy(model(x)), atol=1e-5)
    model.fit(x, np.ones((3, 3), "float32"), verbose=0)  # the train function follows the new label count


def test_find_label_head_and_split_at_head():
    model = small_model()
    head = find_label_head(model)
    assert isinstance(head, GileHead)
    encoder, same = split_at_head(model)
    assert same is head and split_at_head(model)[0] is encoder  # one encoder per model and head
    x = RNG.integers(1, 40, size=(2, 6)).astype("int32")
    np.testing.assert_allclose(ops.convert_to_numpy(head(encoder(x))), ops.convert_to_numpy(model(x)), atol=1e-6)
    # A model nested in another is searched too.
    outer = keras.Sequential([keras.Input((6,), dtype="int32"), model])
    assert find_label_head(outer) is head


def test_find_label_head_errors_name_what_was_received():
    plain = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="no label head"):
        find_label_head(plain)
    with pytest.raises(ValueError, match="keras.Model"):
        find_label_head("not a model")
    inputs = keras.Input((4,))
    two = keras.Model(inputs, [LinearHead(3, name="a")(inputs), LinearHead(2, name="b")(inputs)])
    with pytest.raises(ValueError, match=r"several label heads \(\['a', 'b'\]\)"):
        find_label_head(two)
    inputs = keras.Input((4,))
    after_head = keras.Model(inputs, keras.layers.Activation("sigmoid")(LinearHead(3)(inputs)))
    with pytest.raises(ValueError, match="model's only output"):
        split_at_head(after_head)


def test_call_time_labels_are_checked_like_the_constructors():
    embedding = keras.layers.Embedding(40, 6, mask_zero=True)
    head = GileHead(embedding, LABELS, joint_dim=5)
    h = RNG.normal(size=(2, 7)).astype("float32")
    with pytest.raises(ValueError, match=r"label_embeddings.*\(num_labels, 6\).*\(3, 5\)"):
        head(h, label_embeddings=np.zeros((3, 5), "float32"))
    with pytest.raises(ValueError, match=r"outside \[0, 40\)"):
        head(h, label_ids=np.array([[1, 40]]))
    with pytest.raises(ValueError, match="negative"):
        head(h, label_ids=np.array([[1, -1]]))
    with pytest.raises(ValueError, match="empty label descriptions"):
        head(h, label_ids=np.array([[1, 2], [0, 0]]))
    with pytest.raises(ValueError, match="at most one"):
        head(h, label_ids=LABELS, label_embeddings=np.zeros((4, 6), "float32"))


def test_an_empty_description_inside_a_compiled_function_gives_a_finite_score():
    """Traced call-time ids cannot be checked: an all-padding description encodes to the zero vector."""
    import tensorflow as tf

    head = GileHead(keras.layers.Embedding(40, 6, mask_zero=True), LABELS, joint_dim=5)
    scores = tf.function(lambda h, ids: head(h, label_ids=ids), jit_compile=True)(
        tf.constant(RNG.normal(size=(2, 7)).astype("float32")), tf.constant([[3, 4], [0, 0]])
    )
    assert scores.shape == (2, 2) and np.isfinite(scores.numpy()).all()


def test_out_of_vocabulary_ids_inside_a_compiled_function_are_read_as_padding():
    import tensorflow as tf

    head = GileHead(keras.layers.Embedding(40, 6, mask_zero=True), LABELS, joint_dim=5)
    h = tf.constant(RNG.normal(size=(2, 7)).astype("float32"))
    score = tf.function(lambda h, ids: head(h, label_ids=ids), jit_compile=True)
    np.testing.assert_allclose(
        score(h, tf.constant([[3, 99], [5, -4]])).numpy(), score(h, tf.constant([[3, 0], [5, 0]])).numpy(), atol=1e-6
    )


def test_label_count_is_fixed_only_for_per_label_parameters():
    embedding = keras.layers.Embedding(40, 6, mask_zero=True)
    shared = DrillHead(embedding, LABELS, depth=1)
    shared(np.zeros((1, 6), "float32"))
    shared.set_labels(LABELS[:2])
    assert shared.num_labels == 2
    per_label = DrillHead(embedding, LABELS, depth=1, bias_mode="per_label")
    per_label(np.zeros((1, 6), "float32"))
    with pytest.raises(ValueError, match="per-label parameters for 4 labels"):
        per_label.set_labels(LABELS[:2])


def test_a_label_head_layer_brings_its_embedding_into_the_builder():
    embedding = keras.layers.Embedding(40, 6, mask_zero=True)
    head = DrillHead(embedding, LABELS, depth=1, input_projection=True)
    model = document_classifier(40, head=head, flat=True, max_tokens=6, encoder_units=5)
    assert model.get_layer(embedding.name) is embedding
    assert find_label_head(model) is head
    with pytest.raises(ValueError, match="embedding_dim"):
        document_classifier(
            40, head=DrillHead(keras.layers.Embedding(40, 6), LABELS, depth=1), flat=True, max_tokens=6, embedding_dim=8
        )
    with pytest.raises(ValueError, match="own label set"):
        document_classifier(40, LABELS, head=head, flat=True, max_tokens=6)


@pytest.mark.parametrize(
    "spec,match",
    [
        ({"type": "gile", "depth": 2}, r"\['depth'\] belong to another head"),
        ({"type": "drill", "activation": "tanh", "num_languages": 2}, r"\['num_languages'\]"),
        ({"type": "linear", "joint_dim": 4}, r"\['joint_dim'\]"),
        ({"type": "gile", "bias_initializer": "zeros"}, r"\['bias_initializer'\]"),
        ({"type": "softmax"}, "head\\['type'\\]"),
        ("deep", "head='deep'"),
    ],
)
def test_head_specs_reject_arguments_of_another_head(spec, match):
    with pytest.raises(ValueError, match=match):
        document_classifier(40, LABELS, flat=True, max_tokens=6, head=spec)
