"""SavedModel export of a language model: raw text in, the next word's distribution out, from zero state."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.export import export_language_model, stateless_language_model
from keras_labelemb.models import drill_lm

WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "<eos>", "<unk>"]
TEXTS = ["the cat sat on", "a dog", "the zebra ran", "mat"]  # "zebra" is not a word of the model


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A stateful DRILL LM (batch 2, bptt 4) trained two steps, its stateless copy, and its export."""
    keras.utils.set_random_seed(0)
    model = drill_lm(len(WORDS), batch_size=2, bptt=4, units=8, num_layers=2, depth=2)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), run_eagerly=True)
    stream = np.random.default_rng(0).integers(0, len(WORDS), (2, 2, 5))
    model.fit(stream[:, :, :-1].reshape(-1, 4), stream[:, :, 1:].reshape(-1, 4), batch_size=2, shuffle=False, verbose=0)
    path = export_language_model(model, WORDS, str(tmp_path_factory.mktemp("lm") / "served"))
    return model, stateless_language_model(model), tf.saved_model.load(path)


def in_memory(copy, text):
    """The copy's next-word distribution after `text`, read alone."""
    ids = np.array([[WORDS.index(w) if w in WORDS else WORDS.index("<unk>") for w in text.split()]], "int32")
    return tf.nn.softmax(copy(ids, training=False)[0, -1]).numpy()


def serve(served, texts):
    return served.serve(tf.constant(texts, tf.string, shape=[len(texts)]))["probabilities"].numpy()


def test_served_distributions_equal_the_stateless_model_and_keep_no_state(trained):
    model, copy, served = trained
    probabilities = serve(served, TEXTS)
    assert probabilities.shape == (len(TEXTS), len(WORDS)) and probabilities.dtype == np.float32
    np.testing.assert_allclose(probabilities, [in_memory(copy, text) for text in TEXTS], atol=1e-5)
    np.testing.assert_allclose(probabilities.sum(axis=-1), 1.0, atol=1e-5)
    # No state leaks between requests or rows: the same text reads the same alone, later, after others.
    np.testing.assert_allclose(serve(served, TEXTS[::-1]), probabilities[::-1], atol=1e-6)
    np.testing.assert_allclose(serve(served, TEXTS[1:2]), probabilities[1:2], atol=1e-6)
    np.testing.assert_allclose(serve(served, TEXTS), probabilities, atol=1e-6)
    # The default signature is the same endpoint, and the vocabulary names the columns.
    default = served.signatures["serving_default"](texts=tf.constant(TEXTS))["probabilities"].numpy()
    np.testing.assert_allclose(default, probabilities, atol=1e-6)
    assert [w.decode() for w in served.vocabulary()["vocabulary"].numpy()] == WORDS


def test_malformed_requests_give_defined_distributions(trained):
    model, copy, served = trained
    assert serve(served, []).shape == (0, len(WORDS))
    empty = serve(served, ["", " \t ", "the cat"])
    # An empty text: the distribution before any token, from the zero state of the last LSTM layer.
    last_lstm = copy.get_layer("lstm_2")
    tail = keras.Model(last_lstm.output, copy.output)
    before_any = tf.nn.softmax(tail(np.zeros((1, 1, 8), "float32"))[0, 0]).numpy()
    np.testing.assert_allclose(empty[:2], [before_any, before_any], atol=1e-5)
    np.testing.assert_allclose(empty[2], in_memory(copy, "the cat"), atol=1e-5)
    # Bytes that are not UTF-8 are one unknown token.
    np.testing.assert_allclose(serve(served, [b"\xff\xfe"]), serve(served, ["<unk>"]), atol=1e-6)
    np.testing.assert_allclose(serve(served, [b"a \x80dog"])[0], in_memory(copy, "a <unk>"), atol=1e-5)


def test_start_token_and_max_length(trained, tmp_path):
    model, copy, served = trained
    path = export_language_model(model, WORDS, str(tmp_path / "eos"), start_token="<eos>", max_length=2)
    from_eos = tf.saved_model.load(path)
    texts = ["", "a", "the cat sat"]
    # Read after "<eos>", then only the last two tokens.
    np.testing.assert_allclose(serve(from_eos, texts), serve(served, ["<eos>", "<eos> a", "cat sat"]), atol=1e-6)


def test_export_validates_its_arguments(trained, tmp_path):
    model = trained[0]
    path = str(tmp_path / "never")
    with pytest.raises(ValueError, match=r"one word per output of the model \(10\). Received: 9 words"):
        export_language_model(model, WORDS[:-1], path)
    with pytest.raises(ValueError, match="distinct. Received: 'the'"):
        export_language_model(model, WORDS[:-1] + ["the"], path)
    with pytest.raises(ValueError, match="without whitespace"):
        export_language_model(model, WORDS[:-1] + ["new york"], path)
    with pytest.raises(ValueError, match="unknown_token='<UNK>'"):
        export_language_model(model, WORDS, path, unknown_token="<UNK>")
    with pytest.raises(ValueError, match="start_token='<s>'"):
        export_language_model(model, WORDS, path, start_token="<s>")
    with pytest.raises(ValueError, match="max_length=0"):
        export_language_model(model, WORDS, path, max_length=0)
    ids = keras.Input((None,), dtype="int32")
    no_recurrence = keras.Model(ids, keras.layers.Dense(10)(keras.layers.Embedding(10, 4)(ids)))
    with pytest.raises(ValueError, match="recurrent layer"):
        export_language_model(no_recurrence, WORDS, path)
