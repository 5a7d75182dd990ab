"""Every reference model trains with `jit_compile=True` (TensorFlow) and follows graph-mode training.

One case per reference model: GILE-HAN (dense encoders, and bidirectional GRUs), GILE-WAN, DRILL
classifier (HAN encoder), a BiLSTM max-pooling classifier with a hybrid head (GILE, lexical,
word-interaction, embedding-match and linear components), oh-2LSTMp (chopped one-hot RegionLSTM),
CNLE (teacher forcing) and the DRILL language model. The layer contract's training step is eager
under TensorFlow, so these are where TensorFlow's XLA compiles the layers' gradients: every layer
class of the contract but `WideHead`, the multilingual variants and the string layers, each in the
configuration named here (not every configuration of tests/layer_cases.py: recurrent dropout, greedy
decoding in training and the ablation variants are trained with XLA only under JAX, in
tests/test_backends.py, or not at all where that run skips them). Each trains the same steps from
the same initial weights once compiled with XLA and once in graph mode; the losses of every step
and the weights they end at must agree (XLA fuses and reorders float32 arithmetic, hence a
tolerance, not equality) and the loss must fall, so neither mode can pass by not training.
"""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import (
    DrillHead,
    EmbeddingMatchHead,
    GileHead,
    HierarchicalAttention,
    HybridHead,
    LexicalMatchHead,
    LinearHead,
    MaxPoolEncoder,
    WordInteractionHead,
)
from keras_labelemb.losses import LabelSequenceLoss
from keras_labelemb.losses.label_sequences import label_sequences
from keras_labelemb.models import (
    cnle,
    document_classifier,
    drill_lm,
    gile_han,
    gile_wan,
    oh_2lstmp,
)
from keras_labelemb.training.cnle_training import cnle_training_model

VOCABULARY = 30
NUM_LABELS = 4
LABEL_IDS = np.array([[2, 3], [4, 5], [6, 7], [8, 0]], "int32")
RNG = np.random.default_rng(0)
TOKENS = RNG.integers(2, VOCABULARY, size=(16, 12)).astype("int32")
TOKENS[:, 9:] = 0  # padding at the end of every document
# A label is on when one of its words occurs: learnable, several labels per document.
MULTI_HOT = np.stack([np.isin(TOKENS, row[row > 0]).any(axis=1) for row in LABEL_IDS], 1).astype("float32")
BCE = keras.losses.BinaryCrossentropy(from_logits=True)
LEARNING_RATE = 2.0  # large, so that four steps move the loss far more than float32 rounding does


def every_kind_of_head(embedding):
    parts = [
        GileHead(embedding, joint_dim=8),
        LexicalMatchHead(embedding),
        WordInteractionHead(embedding),
        EmbeddingMatchHead(embedding),
        LinearHead(NUM_LABELS),
    ]
    return HybridHead(parts, LABEL_IDS)


def _classifier(build, x, y, learning_rate=LEARNING_RATE):
    """`make()` -> (model to train, its loss, inputs, targets, SGD learning rate)."""
    return lambda: (build(), BCE, x, y, learning_rate)


def _cnle():
    model = cnle(VOCABULARY, LABEL_IDS, max_tokens=12, max_steps=3, model_dim=8, num_heads=2, attention_dim=4)
    sequences = label_sequences(MULTI_HOT, max_steps=3)
    inputs = {"token_ids": TOKENS, "label_sequence": sequences}
    return cnle_training_model(model), LabelSequenceLoss(), inputs, sequences, 0.5  # at 2.0 its loss jumps up


STREAM = RNG.integers(1, VOCABULARY, size=16 * 6 + 1)


def _language_model():
    model = drill_lm(
        VOCABULARY,
        bptt=6,
        units=8,
        num_layers=1,
        dropout=0.0,
        depth=2,
        head_dropout=0.0,
        stateful=False,
    )
    x, y = STREAM[:-1].reshape(16, 6), STREAM[1:].reshape(16, 6)
    return model, keras.losses.SparseCategoricalCrossentropy(from_logits=True), x, y, LEARNING_RATE


CASES = {
    **{
        name: _classifier(
            lambda encoder=encoder: gile_han(
                VOCABULARY,
                LABEL_IDS,
                max_sentences=3,
                max_sentence_length=4,
                embedding_dim=8,
                encoder=encoder,
                units=4,
                dropout=0.0,
                joint_dim=8,
            ),
            TOKENS.reshape(16, 3, 4),
            MULTI_HOT,
        )
        for name, encoder in (("gile_han", "dense"), ("gile_han_bigru", "bigru"))
    },
    "gile_wan": _classifier(
        lambda: gile_wan(VOCABULARY, LABEL_IDS, max_tokens=12, embedding_dim=8, units=4, dropout=0.0),
        TOKENS,
        MULTI_HOT,
    ),
    "drill_classifier": _classifier(
        lambda: document_classifier(
            HierarchicalAttention("dense", 4, "dense", 4),
            DrillHead(
                keras.layers.Embedding(VOCABULARY, 8, mask_zero=True),
                LABEL_IDS,
                depth=2,
                activation="tanh",
                input_projection=True,  # the 4-wide document vector into the 8-wide label space
            ),
            max_sentences=3,
            max_sentence_length=4,
        ),
        TOKENS.reshape(16, 3, 4),
        MULTI_HOT,
    ),
    # The encoder and heads no other case holds: MaxPoolEncoder (a BiLSTM) and a hybrid of every kind of head.
    "max_pool_hybrid": _classifier(
        lambda: document_classifier(
            MaxPoolEncoder(units=4, return_token_states=True),
            every_kind_of_head(keras.layers.Embedding(VOCABULARY, 8, mask_zero=True)),
            max_tokens=12,
        ),
        TOKENS,
        MULTI_HOT,
        learning_rate=0.5,  # the hybrid's five components move its logits fast: 2.0 overshoots
    ),
    "oh_2lstmp": _classifier(
        lambda: oh_2lstmp(
            VOCABULARY, num_labels=NUM_LABELS, max_tokens=12, units=6, chop_size=4, num_regions=2, dropout=0.0
        ),
        TOKENS,
        MULTI_HOT,
    ),
    "cnle": _cnle,
    "drill_lm": _language_model,
}


def _train(make, jit_compile):
    keras.utils.set_random_seed(0)
    model, loss, x, y, learning_rate = make()
    model.compile(keras.optimizers.SGD(learning_rate), loss, jit_compile=jit_compile)
    # The loss of each step, and the weights they end at: the trajectory, not only where it ends.
    losses = [model.train_on_batch(x, y) for _ in range(4)]
    return np.asarray(losses, "float64"), [np.asarray(w, "float64") for w in model.get_weights()]


@pytest.mark.slow  # 3-10 s per model on 2 cores: one XLA compilation of the training step each
@pytest.mark.parametrize("name", sorted(CASES))
def test_trains_under_xla_as_in_graph_mode(name):
    xla_losses, xla_weights = _train(CASES[name], jit_compile=True)
    graph_losses, graph_weights = _train(CASES[name], jit_compile=False)
    assert np.isfinite(xla_losses).all()
    assert xla_losses[-1] < xla_losses[0] - 0.01, xla_losses  # it trained, far beyond rounding
    # XLA fuses and reorders float32 sums: gradients agree to about 1e-6 relative, trajectories to 1e-4.
    np.testing.assert_allclose(xla_losses, graph_losses, rtol=1e-3)
    for xla_weight, graph_weight in zip(xla_weights, graph_weights):
        np.testing.assert_allclose(xla_weight, graph_weight, rtol=1e-3, atol=1e-4)
