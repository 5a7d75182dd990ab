"""The `run_layer_test` arguments of every public layer, shared by the TensorFlow tests
(tests/test_layer_contracts.py) and the JAX-backend run (tests/test_jax_backend.py).

Each case is a function of a NumPy generator returning `(layer_cls, kwargs)` for
`run_layer_test(layer_cls, **kwargs)`; layers are imported inside so the module
can be imported before the Keras backend is chosen.
"""

import numpy as np

GILE_VARIANTS = ("gile", "bilinear", "bilinear_yh15", "only_label", "only_input", "linear")
GILE_LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")


def sequence_mask():
    mask = np.ones((3, 5), bool)
    mask[0, 3:] = False
    mask[2] = False  # fully masked row
    return mask


def document_mask():
    mask = np.ones((3, 4, 5), bool)
    mask[0, 2:] = False  # two padding sentences
    mask[0, 1, 3:] = False  # a short sentence
    mask[2] = False  # an all-padding document
    return mask


def attention_pooling(rng):
    from keras_labelemb.layers import AttentionPooling

    return AttentionPooling, dict(
        init_kwargs={"units": 6}, input_data=rng.normal(size=(3, 5, 4)).astype("float32"),
        expected_output_shape=(3, 4), mask=sequence_mask(), expected_num_trainable_weights=3,
    )


def attention_pooling_with_scores(rng):
    from keras_labelemb.layers import AttentionPooling

    return AttentionPooling, dict(
        init_kwargs={"return_attention_scores": True}, input_data=rng.normal(size=(3, 5, 4)).astype("float32"),
        expected_output_shape=((3, 4), (3, 5)), mask=sequence_mask(),
    )


def label_encoder(rng):
    from keras_labelemb.layers import LabelEncoder

    mask = np.ones((4, 6), bool)
    mask[1, 2:] = False
    mask[3] = False  # empty description
    return LabelEncoder, dict(
        init_kwargs={}, input_data=rng.normal(size=(4, 6, 3)).astype("float32"), expected_output_shape=(4, 3),
        mask=mask, expected_num_trainable_weights=0, run_training=False,  # no weights to train
    )


def _hierarchical(encoder):
    def case(rng):
        from keras_labelemb.layers import HierarchicalAttention

        return HierarchicalAttention, dict(
            init_kwargs={"word_encoder": encoder, "word_units": 4, "sentence_encoder": encoder,
                         "sentence_units": 3, "dropout": 0.1,
                         # tanh: with 3-4 relu units ~3% of initialisations start with every unit dead.
                         "dense_activation": "tanh"},
            input_data=rng.normal(size=(3, 4, 5, 6)).astype("float32"),
            expected_output_shape=(3, 6 if encoder.startswith("bi") else 3), mask=document_mask(),
        )

    return case


def hierarchical_attention_flat_with_scores(rng):
    from keras_labelemb.layers import HierarchicalAttention

    mask = np.ones((3, 7), bool)
    mask[0, 4:] = False
    mask[2] = False
    return HierarchicalAttention, dict(
        init_kwargs={"word_encoder": "gru", "word_units": 4, "flat": True, "return_attention_scores": True},
        input_data=rng.normal(size=(3, 7, 6)).astype("float32"), expected_output_shape=((3, 4), (3, 7)), mask=mask,
    )


def _gile_head(variant):
    def case(rng):
        import keras

        from keras_labelemb.layers import GileHead

        def init_kwargs():  # a fresh embedding for every instance the helper builds
            return {"embedding": keras.layers.Embedding(40, 6, mask_zero=True), "label_ids": GILE_LABELS,
                    "joint_dim": 5, "variant": variant, "activation": "tanh"}

        return GileHead, dict(
            init_kwargs=init_kwargs, input_data=rng.normal(size=(3, 7)).astype("float32"),
            expected_output_shape=(3, 4),
            # Embedding rows of words in no label description get no gradient from the head.
            frozen_weights=("embeddings",),
        )

    return case


CASES = {
    "attention_pooling": attention_pooling,
    "attention_pooling_with_scores": attention_pooling_with_scores,
    "label_encoder": label_encoder,
    **{f"hierarchical_attention_{e}": _hierarchical(e) for e in ("dense", "bigru", "lstm")},
    "hierarchical_attention_flat_with_scores": hierarchical_attention_flat_with_scores,
    **{f"gile_head_{v}": _gile_head(v) for v in GILE_VARIANTS},
}


def run_case(name, seed=0):
    from keras_labelemb.testing import run_layer_test

    layer_cls, kwargs = CASES[name](np.random.default_rng(seed))
    return run_layer_test(layer_cls, **kwargs)
