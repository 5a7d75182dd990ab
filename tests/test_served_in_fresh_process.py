"""Each reference model's SavedModel, loaded in a fresh process that imports only TensorFlow and
tensorflow-text, serves what the in-memory model predicts; malformed requests give defined outputs."""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.export import export_language_model, export_text_classifier, stateless_language_model
from keras_labelemb.layers import (
    DrillHead,
    GileHead,
    HierarchicalAttention,
    HybridHead,
    LexicalMatchHead,
    LinearHead,
    WordInteractionHead,
)
from keras_labelemb.losses.label_sequences import label_sequences
from keras_labelemb.models import (
    cnle,
    document_classifier,
    drill_lm,
    gile_han,
    oh_2lstmp,
)
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.text import TextVectorizer
from keras_labelemb.training.cnle_training import cnle_training_model, compile_cnle_training_model

TEXTS = [
    "Wheat prices rose. Farmers sold more grain this week.",
    "The central bank cut interest rates. Bonds rallied.",
    "Gold and silver fell sharply! Miners lost 3.5 percent.",
]
LABELS = ["wheat grain", "interest rates bank", "gold silver metals"]
NEW_LABELS = ["farmers grain harvest", "bonds", "miners metals"]
UNKNOWN_ONLY = ["qwxz vbnmk"]  # a label description of words in no vocabulary
# Label descriptions sent with a request. An empty description reads as padding (a call of the head in memory
# refuses it, so those scores are checked for shape and range only), and no labels at all give (B, 0) scores.
LABEL_REQUESTS = {"new": NEW_LABELS, "unknown_only": UNKNOWN_ONLY, "with_empty": [*NEW_LABELS, ""], "no_labels": []}
UNCOMPARED = (".no_labels", ".with_empty")  # no in-memory prediction to compare with
TARGETS = np.eye(3, dtype="float32")
# Malformed serving input, sent as bytes: no text at all, empty texts, bytes that are not UTF-8.
MALFORMED = {
    "no_texts": [],
    "empty": [b"", b"   "],
    "not_utf8": [b"\xff\xfe", b"wheat \xc3\x28 prices \x80"],
}
LM_WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "<eos>", "<unk>"]
LM_TEXTS = ["the cat sat on", "a dog", "the zebra ran", "mat"]  # "zebra" is not a word of the model

# The server. Keras is blocked while it imports TensorFlow and serves the language model, which needs nothing
# else. tensorflow-text imports Keras itself (its own Keras layers subclass `tf.keras.layers.Layer`), so the
# block is lifted for that import only; loading and serving the classifiers after it must import no Keras module
# that tensorflow-text did not. keras_labelemb stays blocked throughout.
SERVER = """
import json, sys
sys.modules["keras"] = sys.modules["keras_labelemb"] = None  # an import of either now raises ImportError
import numpy as np
import tensorflow as tf

exports, requests, out = json.loads(sys.argv[1]), eval(sys.argv[2]), sys.argv[3]
errors, report = {}, {}

def keras_modules():
    roots = ("keras", "keras_labelemb", "tf_keras")
    return sorted(m for m in sys.modules if m.split(".")[0] in roots and sys.modules[m])

def serve(names):
    loaded = {name: tf.saved_model.load(exports[name]) for name in names}
    for key, name, endpoint, args in requests:
        if name not in names:
            continue
        try:
            outputs = getattr(loaded[name], endpoint)(*[tf.constant(a, tf.string, shape=[len(a)]) for a in args])
            for output, value in outputs.items():
                np.save(f"{out}/{key}.{output}.npy", value.numpy())
        except Exception as error:  # recorded for the test to read: the process itself must go on
            errors[key] = f"{type(error).__name__}: {error}"[:500]

serve(["drill_lm"])
report["keras_with_language_model"] = keras_modules()
del sys.modules["keras"]
import tensorflow_text  # noqa: F401  (the tokenizer ops of the classifiers' graphs; imports Keras)
before = set(keras_modules())
serve([name for name in exports if name != "drill_lm"])
report["keras_imported_by_classifiers"] = sorted(set(keras_modules()) - before)
report["keras_labelemb"] = sys.modules["keras_labelemb"] is not None
report["errors"] = errors
json.dump(report, open(f"{out}/report.json", "w"))
"""


def _classifier_predictions(model, vectorizer, decoded=False):
    """In-memory `serve` / `serve_with_labels` of a classifier, as the export computes them."""
    classifier = LabelClassifier.from_model(model)
    encoder, head = classifier.encoder, classifier.head
    length = None if head.label_ids is None else head.label_ids.shape[1]

    def finish(outputs):
        outputs = np.asarray(outputs, "float32")
        return outputs if decoded else 1 / (1 + np.exp(-outputs))

    def serve(texts):
        return finish(model(vectorizer(tf.constant(texts, tf.string)), training=False))

    def serve_with_labels(texts, descriptions):
        ids = vectorizer(tf.constant(texts, tf.string))
        label_ids = vectorizer.encode_labels(descriptions, length)
        mask = {"mask": tf.not_equal(ids, 0)} if decoded else {}
        return finish(head(encoder(ids, training=False), label_ids=label_ids, **mask))

    return serve, serve_with_labels


def _lm_predictions(model):
    """In-memory next-word distributions of non-empty byte texts, read one by one by the stateless copy."""
    copy = stateless_language_model(model)
    index = {word.encode(): i for i, word in enumerate(LM_WORDS)}

    def serve(texts):
        rows = []
        for text in texts:  # bytes, split on whitespace as the served graph does
            ids = np.array([[index.get(w, index[b"<unk>"]) for w in text.split()]], "int32")
            rows.append(tf.nn.softmax(copy(ids, training=False)[0, -1]).numpy())
        return np.stack(rows)

    return serve


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Every reference family, tiny and trained a step or two, exported; the in-memory predictors beside."""
    keras.utils.set_random_seed(0)
    root = tmp_path_factory.mktemp("exports")
    han_vectorizer = TextVectorizer(flat=False, max_sentences=3, max_sentence_length=8)
    han_vectorizer.adapt(TEXTS + LABELS + NEW_LABELS)
    flat_vectorizer = TextVectorizer(max_tokens=12, vocabulary=han_vectorizer.get_vocabulary())
    bce = keras.losses.BinaryCrossentropy(from_logits=True)
    models = {}

    label_ids = han_vectorizer.encode_labels(LABELS, 3)
    gile = gile_han(
        han_vectorizer.vocabulary_size,
        label_ids,
        3,
        8,
        embedding_dim=8,
        units=8,
        joint_dim=8,
    )
    models["gile_han"] = (gile, han_vectorizer, False)
    lstm = oh_2lstmp(flat_vectorizer.vocabulary_size, num_labels=3, max_tokens=12, units=4, chop_size=4)
    models["oh_2lstmp"] = (lstm, flat_vectorizer, False)
    vocabulary = han_vectorizer.vocabulary_size
    drill = document_classifier(
        HierarchicalAttention("dense", 8, flat=True),
        DrillHead(keras.layers.Embedding(vocabulary, 8, mask_zero=True), label_ids, depth=1, activation="tanh"),
        max_tokens=12,
    )
    models["drill_classifier"] = (drill, flat_vectorizer, False)
    embedding = keras.layers.Embedding(vocabulary, 8, mask_zero=True)
    parts = [GileHead(embedding, joint_dim=8), LexicalMatchHead(embedding), WordInteractionHead(embedding)]
    hybrid = document_classifier(
        HierarchicalAttention("dense", 8, "dense", 8),
        HybridHead(parts + [LinearHead(3)], label_ids),
        max_sentences=3,
        max_sentence_length=8,
    )
    hybrid.layers[-1].adapt(han_vectorizer(tf.constant(TEXTS)))  # idf of the token-reading components
    models["hybrid_han"] = (hybrid, han_vectorizer, False)
    for model, vectorizer, _ in models.values():  # eager: two steps cost less than tracing a training graph
        model.compile("adam", bce, run_eagerly=True)
        model.fit(vectorizer(tf.constant(TEXTS)), TARGETS, epochs=2, verbose=0)

    decoder = cnle(
        flat_vectorizer.vocabulary_size,
        label_ids,
        max_tokens=12,
        max_steps=3,
        model_dim=8,
        num_heads=2,
        attention_dim=4,
    )
    sequences = label_sequences(TARGETS, max_steps=3)
    training = compile_cnle_training_model(cnle_training_model(decoder), keras.optimizers.Adam(3e-2), run_eagerly=True)
    ids = flat_vectorizer(tf.constant(TEXTS))
    training.fit({"token_ids": ids, "label_sequence": sequences}, sequences, epochs=10, verbose=0)
    assert np.asarray(decoder(ids)).sum() > 0, "some label decoded, so that comparing the sets says something"
    models["cnle"] = (decoder, flat_vectorizer, True)

    exports, predictors = {}, {}
    for name, (model, vectorizer, decoded) in models.items():
        exports[name] = export_text_classifier(model, vectorizer, str(root / name))
        predictors[name] = _classifier_predictions(model, vectorizer, decoded)

    lm = drill_lm(len(LM_WORDS), batch_size=2, bptt=4, units=8, num_layers=1, depth=2)
    lm.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), run_eagerly=True)
    stream = np.random.default_rng(0).integers(0, len(LM_WORDS), (2, 2, 5))
    lm.fit(stream[:, :, :-1].reshape(-1, 4), stream[:, :, 1:].reshape(-1, 4), batch_size=2, shuffle=False, verbose=0)
    exports["drill_lm"] = export_language_model(lm, LM_WORDS, str(root / "drill_lm"))
    predictors["drill_lm"] = (_lm_predictions(lm), None)
    return exports, predictors


def _requests():
    """`(key, export, endpoint, args)`: the ordinary requests, then the malformed ones."""
    requests = []
    for name in ("gile_han", "oh_2lstmp", "drill_classifier", "hybrid_han", "cnle", "drill_lm"):
        texts = [t.encode() for t in (LM_TEXTS if name == "drill_lm" else TEXTS)]
        requests.append((f"{name}.serve", name, "serve", [texts]))
        for case, malformed in MALFORMED.items():
            requests.append((f"{name}.serve.{case}", name, "serve", [malformed]))
        if name in (
            "gile_han",
            "drill_classifier",
            "hybrid_han",
            "cnle",
        ):  # label-embedding models: labels with the request
            for case, descriptions in LABEL_REQUESTS.items():
                labels = [d.encode() for d in descriptions]
                requests.append((f"{name}.labels.{case}", name, "serve_with_labels", [texts, labels]))
            requests.append((f"{name}.labels.no_texts", name, "serve_with_labels", [[], [LABELS[0].encode()]]))
    return requests


# One label given with the request: CNLE's text-to-label attention over it is 1, as it should be.
@pytest.mark.filterwarnings("ignore:You are using a softmax over axis")
@pytest.mark.slow  # ~38 s on 2 busy cores (22 s: five models trained and exported; 16 s: the serving process)
def test_exports_serve_in_memory_predictions_in_a_process_without_keras(exported, tmp_path):
    exports, predictors = exported
    requests = _requests()
    run = subprocess.run(
        [sys.executable, "-c", SERVER, json.dumps(exports), repr(requests), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert report == {
        "keras_with_language_model": [],
        "keras_imported_by_classifiers": [],
        "keras_labelemb": False,
        "errors": {},
    }, report

    outputs = {"drill_lm": "probabilities", "cnle": "labels"}
    for key, name, endpoint, args in requests:
        served = np.load(tmp_path / f"{key}.{outputs.get(name, 'scores')}.npy")
        texts = args[0]
        width = len(LM_WORDS) if name == "drill_lm" else len(args[1]) if len(args) == 2 else len(LABELS)
        assert served.shape == (len(texts), width), key
        assert served.dtype == np.float32 and np.all(np.isfinite(served)), key
        if name == "drill_lm":
            np.testing.assert_allclose(served.sum(axis=-1), 1.0, atol=1e-5, err_msg=key)
        else:
            assert np.all((served >= 0) & (served <= 1)), key
        if name == "cnle":
            assert np.isin(served, (0.0, 1.0)).all(), key
        # The same bytes read in memory; an empty text of the LM has no in-memory step to compare (its test file).
        if texts and (name != "drill_lm" or all(t.strip() for t in texts)) and not key.endswith(UNCOMPARED):
            serve, serve_with_labels = predictors[name]
            expected = serve(texts) if endpoint == "serve" else serve_with_labels(texts, [d.decode() for d in args[1]])
            if name == "cnle":
                np.testing.assert_array_equal(served, expected, err_msg=key)
            else:
                np.testing.assert_allclose(served, expected, atol=1e-5, err_msg=key)
