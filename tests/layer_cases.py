"""The `run_layer_test` arguments of every public layer, shared by the TensorFlow tests
(tests/test_layer_contracts.py) and the JAX and PyTorch runs (tests/test_backends.py).

Each case is a function of a NumPy generator returning `(layer_cls, kwargs)` for
`run_layer_test(layer_cls, **kwargs)`; layers are imported inside so the module
can be imported before the Keras backend is chosen.
"""

import numpy as np

GILE_VARIANTS = ("gile", "bilinear", "bilinear_yh15", "only_label", "only_input")
GILE_LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")
OTHER_LABELS = np.array([[10, 11], [12, 0], [3, 13], [14, 15]], "int32")  # another 4-label set, for call time


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
        init_kwargs={"units": 6},
        input_data=rng.normal(size=(3, 5, 4)).astype("float32"),
        expected_output_shape=(3, 4),
        mask=sequence_mask(),
        expected_num_trainable_weights=3,
    )


def attention_pooling_with_scores(rng):
    from keras_labelemb.layers import AttentionPooling

    return AttentionPooling, dict(
        init_kwargs={"return_attention_scores": True},
        input_data=rng.normal(size=(3, 5, 4)).astype("float32"),
        expected_output_shape=((3, 4), (3, 5)),
        mask=sequence_mask(),
    )


def label_encoder(rng):
    from keras_labelemb.layers import LabelEncoder

    mask = np.ones((4, 6), bool)
    mask[1, 2:] = False
    mask[3] = False  # empty description
    return LabelEncoder, dict(
        init_kwargs={},
        input_data=rng.normal(size=(4, 6, 3)).astype("float32"),
        expected_output_shape=(4, 3),
        mask=mask,
        expected_num_trainable_weights=0,
        run_training=False,  # no weights to train
    )


def _hierarchical(word_encoder, sentence_encoder, token_states=False):
    # One recurrent case holds a bidirectional GRU and an LSTM: XLA compiling a recurrent case's loops (the
    # forward pass under TensorFlow, the training step under JAX) is most of the contract's time;
    # tests/test_bidirectional.py and tests/test_hierarchical_attention.py cover the other encoder kinds.
    def case(rng):
        from keras_labelemb.layers import HierarchicalAttention

        output_shape = (3, 6 if sentence_encoder.startswith("bi") else 3)
        if token_states:
            output_shape = {
                "pooled": output_shape,
                "token_states": (3, 4, 5, 8 if word_encoder.startswith("bi") else 4),
            }
        return HierarchicalAttention, dict(
            init_kwargs={
                "word_encoder": word_encoder,
                "word_units": 4,
                "sentence_encoder": sentence_encoder,
                "sentence_units": 3,
                "dropout": 0.1,
                # tanh: with 3-4 relu units ~3% of initialisations start with every unit dead.
                "dense_activation": "tanh",
                # The document structure a head that reads tokens gets: the pooled vector and the word states.
                "return_token_states": token_states,
            },
            input_data=rng.normal(size=(3, 4, 5, 6)).astype("float32"),
            expected_output_shape=output_shape,
            mask=document_mask(),
        )

    return case


def hierarchical_attention_flat_with_scores(rng):
    from keras_labelemb.layers import HierarchicalAttention

    mask = np.ones((3, 7), bool)
    mask[0, 4:] = False
    mask[2] = False
    return HierarchicalAttention, dict(
        init_kwargs={"word_encoder": "gru", "word_units": 4, "flat": True, "return_attention_scores": True},
        input_data=rng.normal(size=(3, 7, 6)).astype("float32"),
        expected_output_shape=((3, 4), (3, 7)),
        mask=mask,
    )


def _max_pool_encoder(encoder, recurrent_dropout, token_states):
    """LSTM_reg's encoder over a batch with a fully masked document; word dropout on, so the training step runs it.

    Recurrent dropout adds ~1.2 s per RNN direction to a case compiled with XLA (its CPU random numbers in the
    loop): only the BiLSTM case runs it, under TensorFlow alone, where the training step is eager (recurrent
    dropout under XLA is not checked).
    """

    def case(rng):
        from keras_labelemb.layers import MaxPoolEncoder

        size = 8 if encoder.startswith("bi") else 4
        output_shape = {"pooled": (3, size), "token_states": (3, 5, size)} if token_states else (3, size)
        return MaxPoolEncoder, dict(
            init_kwargs={
                "encoder": encoder,
                "units": 4,
                "recurrent_dropout": recurrent_dropout,
                "word_dropout": 0.1,
                "return_token_states": token_states,
            },
            input_data=rng.normal(size=(3, 5, 6)).astype("float32"),
            expected_output_shape=output_shape,
            mask=sequence_mask(),
            expected_num_trainable_weights=6 if encoder.startswith("bi") else 3,
        )

    return case


def _gile_head(variant):
    def case(rng):
        import keras

        from keras_labelemb.layers import GileHead

        def init_kwargs():  # a fresh embedding for every instance the helper builds
            return {
                "embedding": keras.layers.Embedding(40, 6, mask_zero=True),
                "label_ids": GILE_LABELS,
                "joint_dim": 5,
                "variant": variant,
                "activation": "tanh",
            }

        return GileHead, dict(
            init_kwargs=init_kwargs,
            input_data=rng.normal(size=(3, 7)).astype("float32"),
            expected_output_shape=(3, 4),
            # Embedding rows of words in no label description get no gradient from the head.
            frozen_weights=("embeddings",),
        )

    return case


def hierarchical_attention_multilingual(rng):
    """MHAN-Enc: two languages share the encoders, each has its own attention; called for language 1."""
    from keras_labelemb.layers import HierarchicalAttention

    return HierarchicalAttention, dict(
        init_kwargs={
            "word_encoder": "dense",
            "word_units": 4,
            "sentence_encoder": "dense",
            "sentence_units": 3,
            "num_languages": 2,
            "share": "encoders",
            "dense_activation": "tanh",
        },
        input_data=rng.normal(size=(3, 4, 5, 6)).astype("float32"),
        expected_output_shape=(3, 3),
        mask=document_mask(),
        call_kwargs={"language": 1},
        frozen_weights=("word_attention/", "sentence_attention/"),  # language 0's attention is not used
    )


def gile_head_multilingual(rng):
    """Two languages share U, V; each has its own w, b and label set (GILE section 3.3)."""
    import keras

    from keras_labelemb.layers import GileHead

    def init_kwargs():
        return {
            "embedding": keras.layers.Embedding(40, 6, mask_zero=True),
            "joint_dim": 5,
            "num_languages": 2,
            "label_ids": GILE_LABELS,  # the shared set, scored for a per-document language tensor
            "language_label_ids": [GILE_LABELS, OTHER_LABELS],
        }

    return GileHead, dict(
        init_kwargs=init_kwargs,
        input_data=rng.normal(size=(3, 7)).astype("float32"),
        expected_output_shape=(3, 4),
        call_kwargs={"language": 1},
        # Language 0's w and b, and words in neither label set, get no gradient from a language-1 batch.
        frozen_weights=("embeddings", "joint_weight", "bias"),
    )


def gile_head_call_time_labels(rng):
    """A label set given to `call` (the serving path of a zero-shot export), not the stored one."""
    import keras

    from keras_labelemb.layers import GileHead

    def init_kwargs():
        return {"embedding": keras.layers.Embedding(40, 6, mask_zero=True), "label_ids": GILE_LABELS, "joint_dim": 5}

    return GileHead, dict(
        init_kwargs=init_kwargs,
        input_data=rng.normal(size=(3, 7)).astype("float32"),
        expected_output_shape=(3, 4),
        call_kwargs={"label_ids": OTHER_LABELS},
        frozen_weights=("embeddings",),
    )


def cosine_head(rng):
    import keras

    from keras_labelemb.layers import CosineHead

    def init_kwargs():  # a fresh embedding for every instance the helper builds
        return {"embedding": keras.layers.Embedding(40, 6, mask_zero=True), "label_ids": GILE_LABELS}

    return CosineHead, dict(
        init_kwargs=init_kwargs,
        input_data=rng.normal(size=(3, 7)).astype("float32"),
        expected_output_shape=(3, 4),
        frozen_weights=("embeddings",),  # rows of words in no description get no gradient
    )


def linear_head(rng):
    from keras_labelemb.layers import LinearHead

    return LinearHead, dict(
        init_kwargs={"num_labels": 4},
        input_data=rng.normal(size=(3, 7)).astype("float32"),
        expected_output_shape=(3, 4),
        expected_num_trainable_weights=2,
    )


def _drill_head_baseline(variant):
    """The DRILL paper's baselines on a tied 30-word vocabulary."""

    def case(rng):
        import keras

        from keras_labelemb.layers import DrillHead

        def init_kwargs():
            return {"embedding": keras.layers.Embedding(30, 6), "variant": variant}

        return DrillHead, dict(
            init_kwargs=init_kwargs,
            input_data=rng.normal(size=(3, 5, 6)).astype("float32"),
            expected_output_shape=(3, 5, 30),
        )

    return case


def drill_head_tied(rng):
    """Language-model mode: tied to the 30-word vocabulary, one distribution per time step."""
    import keras

    from keras_labelemb.layers import DrillHead

    def init_kwargs():
        return {
            "embedding": keras.layers.Embedding(30, 6),
            "depth": 2,
            "dropout": 0.3,
            "residual_to_previous": True,
            "seed": 1,
        }

    return DrillHead, dict(
        init_kwargs=init_kwargs,
        input_data=rng.normal(size=(3, 5, 6)).astype("float32"),
        expected_output_shape=(3, 5, 30),
        expected_num_trainable_weights=1 + 2 * 2 + 1,  # table, (U_i, b_i) x 2, per-label bias
    )


def drill_head_descriptions(rng):
    """Classification mode: label descriptions through the shared embedding, input projection."""
    import keras

    from keras_labelemb.layers import DrillHead

    def init_kwargs():
        return {
            "embedding": keras.layers.Embedding(40, 6, mask_zero=True),
            "label_ids": GILE_LABELS,
            "depth": 1,
            "dropout": 0.2,
            "dropout_type": "standard",
            "activation": "tanh",
            "input_projection": True,
        }

    return DrillHead, dict(
        init_kwargs=init_kwargs,
        input_data=rng.normal(size=(3, 7)).astype("float32"),
        expected_output_shape=(3, 4),
        # Embedding rows of words in no label description get no gradient from the head.
        frozen_weights=("embeddings",),
    )


def token_ids_and_mask(rng, vocabulary=12):
    """Token ids (3, 7), 0 = padding: a short document, a full one, an all-padding one; the
    explicit mask also hides one word inside the second document."""
    ids = rng.integers(1, vocabulary, size=(3, 7)).astype("int32")
    ids[0, 4:] = 0
    ids[2] = 0
    mask = ids != 0
    mask[1, 2] = False
    return ids, mask


def region_lstm_bidirectional_chopped(rng):
    """oh-2LSTMp: no i/o gates, both directions, max over 2 regions, chopping (with overlap) when training."""
    from keras_labelemb.layers import RegionLSTM

    ids, mask = token_ids_and_mask(rng)
    return RegionLSTM, dict(
        init_kwargs={"units": 3, "vocabulary_size": 12, "num_regions": 2, "chop_size": 3, "chop_overlap": 1},
        input_data=ids,
        expected_output_shape=(3, 12),
        mask=mask,
        expected_num_trainable_weights=4,  # forward and backward tables, U, b
    )


def region_lstm_full_gates_sequence(rng):
    """Full LSTM gates, backward only, per-step outputs (no pooling)."""
    from keras_labelemb.layers import RegionLSTM

    ids, mask = token_ids_and_mask(rng)
    return RegionLSTM, dict(
        init_kwargs={"units": 4, "vocabulary_size": 12, "gates": "full", "direction": "backward", "pooling": None},
        input_data=ids,
        expected_output_shape=(3, 7, 4),
        mask=mask,
        expected_num_trainable_weights=3,
    )


def region_lstm_side_encoder(rng):
    """A frozen tv-embedding-like encoder (a full-gate forward RegionLSTM) feeding side inputs; average pooling."""
    from keras_labelemb.layers import RegionLSTM

    def init_kwargs():  # a fresh side encoder for every instance the helper builds
        side = RegionLSTM(3, 12, gates="full", direction="forward", pooling=None)
        return {
            "units": 3,
            "vocabulary_size": 12,
            "pooling": "average",
            "num_regions": 3,
            "chop_size": 4,
            "side_encoders": [side],
        }

    ids, mask = token_ids_and_mask(rng)
    return RegionLSTM, dict(
        init_kwargs=init_kwargs,
        input_data=ids,
        expected_output_shape=(3, 18),
        mask=mask,
        expected_num_trainable_weights=5,
        expected_num_non_trainable_weights=3,  # + side kernel; frozen encoder
    )


def _text_vectorizer(flat):
    """Raw strings to token ids, in-graph (tensorflow-text): a `.keras` model that serves text keeps its vocabulary."""

    def case(rng):
        from keras_labelemb.text import TextVectorizer

        texts = np.array(["Wheat prices rose. Grain fell!", "", "the bank raised 3 rates"], dtype=object)
        vocabulary = ["<pad>", "<unk>", "wheat", "prices", "rose", "grain", "the", "bank", "rates", "<num>"]
        shape = (3, 6) if flat else (3, 2, 4)
        return TextVectorizer, dict(
            init_kwargs={
                "vocabulary": vocabulary,
                "flat": flat,
                "max_tokens": 6,
                "max_sentences": 2,
                "max_sentence_length": 4,
            },
            input_data=texts,
            expected_output_shape=shape,
            expected_num_trainable_weights=0,
            run_training=False,
            run_mixed_precision=False,  # no weights; integer outputs
        )

    return case


def word_piece_vectorizer(rng):
    """Raw strings to `[CLS] pieces [SEP]` ids of a keras-hub tokenizer, in-graph; its vocabulary is an asset."""
    import keras_hub

    from keras_labelemb.text import WordPieceVectorizer

    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "wheat", "price", "##s", "rose", "grain", "bank"]
    return WordPieceVectorizer, dict(
        init_kwargs=lambda: {"tokenizer": keras_hub.models.BertTokenizer(pieces, lowercase=True), "sequence_length": 6},
        input_data=np.array(["Wheat prices rose. Grain fell!", "", "the bank raised 3 rates"], dtype=object),
        expected_output_shape=(3, 6),
        expected_num_trainable_weights=0,
        run_training=False,
        run_mixed_precision=False,  # no weights; integer outputs
    )


def tfidf_vectorizer(rng):
    """Raw strings to l2-normalised tf-idf of words and bigrams (dense output; terms given, so they are config)."""
    from keras_labelemb.text import TfidfVectorizer

    terms = ["bank", "grain", "prices", "rates", "wheat", "wheat prices"]
    return TfidfVectorizer, dict(
        init_kwargs={"vocabulary": terms, "idf": [1.5, 2.0, 1.2, 1.7, 1.1, 2.3], "sparse": False},
        input_data=np.array(["Wheat prices rose. Grain fell!", "", "the bank raised 3 rates"], dtype=object),
        expected_output_shape=(3, 6),
        expected_num_trainable_weights=0,
        run_training=False,
        run_mixed_precision=False,  # no weights
    )


def wide_head(rng):
    """The wide path: per-label weights over (dense, here) tf-idf features, an all-zero document among them."""
    from keras_labelemb.layers import WideHead

    features = np.abs(rng.normal(size=(3, 9))).astype("float32")
    features[2] = 0.0
    return WideHead, dict(
        init_kwargs={"num_labels": 4, "kernel_initializer": "glorot_uniform", "kernel_regularizer": "l2"},
        input_data=features,
        expected_output_shape=(3, 4),
        expected_num_trainable_weights=2,
    )


def _region_pooling(mode):
    def case(rng):
        from keras_labelemb.layers import RegionPooling

        return RegionPooling, dict(
            init_kwargs={"num_regions": 2, "mode": mode},
            input_data=rng.normal(size=(3, 5, 4)).astype("float32"),
            expected_output_shape=(3, 8),
            mask=sequence_mask(),
            expected_num_trainable_weights=0,
            run_training=False,  # no weights to train
        )

    return case


def document_dict(rng, vocabulary=16, pooled_width=7):
    """The document dict of a head that reads tokens: a short document with an unknown word (1), a full one,
    an all-padding one; the pooled vectors beside."""
    ids = rng.integers(2, vocabulary, size=(3, 6)).astype("int32")
    ids[0, 2] = 1
    ids[0, 4:] = 0
    ids[2] = 0
    ids[1, :2] = GILE_LABELS[2, :2]  # some exact matches
    return {"pooled": rng.normal(size=(3, pooled_width)).astype("float32"), "token_ids": ids}


def lexical_match_head(rng):
    """BM25 from token ids alone (no embedding: `vocabulary_size`); idf and the mean document length are the
    non-trainable weights. The tf-idf cosine runs as a component of the hybrid case."""
    from keras_labelemb.layers import LexicalMatchHead

    return LexicalMatchHead, dict(
        init_kwargs={"vocabulary_size": 16, "label_ids": GILE_LABELS, "weighting": "bm25"},
        input_data={"token_ids": document_dict(rng)["token_ids"]},
        expected_output_shape=(3, 4),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=2,
    )


def word_interaction_head(rng):
    """K-NRM kernel pooling in the shared embedding, idf-weighted description words."""
    import keras

    from keras_labelemb.layers import WordInteractionHead

    def init_kwargs():
        embedding = keras.layers.Embedding(16, 5, mask_zero=True)
        return {"embedding": embedding, "label_ids": GILE_LABELS, "description_weighting": "idf"}

    return WordInteractionHead, dict(
        init_kwargs=init_kwargs,
        input_data=document_dict(rng),
        expected_output_shape=(3, 4),
        expected_num_trainable_weights=3,  # kernel weights, bias, the shared word table
    )


def word_interaction_head_states(rng):
    """K-NRM over the document's encoder states, projected into the word space."""
    import keras

    from keras_labelemb.layers import WordInteractionHead

    def init_kwargs():
        embedding = keras.layers.Embedding(16, 5, mask_zero=True)
        return {"embedding": embedding, "label_ids": GILE_LABELS, "document_vectors": "states"}

    document = document_dict(rng)
    document["token_states"] = rng.normal(size=(3, 6, 4)).astype("float32")
    return WordInteractionHead, dict(
        init_kwargs=init_kwargs,
        input_data=document,
        expected_output_shape=(3, 4),
        expected_num_trainable_weights=4,  # kernel weights, bias, the state projection, the shared word table
    )


def embedding_match_head(rng):
    """Cosine of mean word vectors, idf-weighted."""
    import keras

    from keras_labelemb.layers import EmbeddingMatchHead

    def init_kwargs():
        embedding = keras.layers.Embedding(16, 5, mask_zero=True)
        return {"embedding": embedding, "label_ids": GILE_LABELS, "idf_weighted": True}

    return EmbeddingMatchHead, dict(
        init_kwargs=init_kwargs,
        input_data=document_dict(rng),
        expected_output_shape=(3, 4),
        expected_num_trainable_weights=3,  # scale, bias, the shared word table
    )


def hybrid_head(rng):
    """GILE + lexical match + embedding match + a per-label linear component, one shared embedding, standardised
    (the all-padding document makes a component's spread over the labels 0: its gradient must stay finite)."""
    import keras

    from keras_labelemb.layers import EmbeddingMatchHead, GileHead, HybridHead, LexicalMatchHead, LinearHead

    def init_kwargs():
        embedding = keras.layers.Embedding(16, 5, mask_zero=True)
        components = [
            GileHead(embedding, joint_dim=4, name="gile"),
            LexicalMatchHead(embedding, name="lexical"),
            EmbeddingMatchHead(embedding, name="embedding"),
            LinearHead(4, name="linear"),
        ]
        return {"components": components, "label_ids": GILE_LABELS, "standardize": True}

    return HybridHead, dict(
        init_kwargs=init_kwargs,
        input_data=document_dict(rng),
        expected_output_shape=(3, 4),
        # Standardised over the labels, a component's own output bias cancels out: no gradient reaches it.
        frozen_weights=("gile/bias", "lexical/bias", "embedding/bias"),
    )


def hybrid_head_per_label_dropout(rng):
    """Lexical match beside a linear component that drops out for half the labels in training; the offset of the
    labels scored without it is learned (the one-hot seed makes a step drop some label)."""
    import keras

    from keras_labelemb.layers import HybridHead, LexicalMatchHead, LinearHead

    def init_kwargs():
        keras.utils.set_random_seed(3)
        components = [LexicalMatchHead(vocabulary_size=16, name="lexical"), LinearHead(4, name="linear")]
        return {"components": components, "label_ids": GILE_LABELS, "standardize": True, "per_label_dropout": 0.5}

    return HybridHead, dict(
        init_kwargs=init_kwargs,
        input_data=document_dict(rng),
        expected_output_shape=(3, 4),
        frozen_weights=("lexical/bias",),
    )


def tiny_bert(vocabulary_size=16, width=8, length=6):
    """A one-layer randomly initialised keras-hub BERT, the pretrained encoder's stand-in in the tests."""
    import keras_hub

    return keras_hub.models.BertBackbone(
        vocabulary_size=vocabulary_size, num_layers=1, num_heads=2, hidden_dim=width, intermediate_dim=16,
        max_sequence_length=length,
    )  # fmt: skip


def sentence_encoder(rng):
    """A keras-hub backbone, mean-pooled; the all-padding document pools to zeros; fine-tuned, so it trains."""
    from keras_labelemb.layers import SentenceEncoder

    ids = rng.integers(1, 16, size=(3, 6)).astype("int32")
    ids[0, 4:] = 0
    ids[2] = 0
    return SentenceEncoder, dict(
        init_kwargs=lambda: {"backbone": tiny_bert(), "fine_tune": True},
        input_data=ids,
        expected_output_shape={"pooled": (3, 8), "token_states": (3, 6, 8), "token_ids": (3, 6), "token_mask": (3, 6)},
        # BERT's pooler (a dense layer over the first token) is what mean pooling replaces.
        frozen_weights=("pooled_dense/",),
    )


def sentence_match_head(rng):
    """Cosine of pooled sentence vectors against descriptions read by the same (frozen) encoder."""
    from keras_labelemb.layers import SentenceEncoder, SentenceMatchHead

    return SentenceMatchHead, dict(
        init_kwargs=lambda: {"embedding": SentenceEncoder(tiny_bert()), "label_ids": GILE_LABELS},
        input_data=rng.normal(size=(3, 8)).astype("float32"),
        expected_output_shape=(3, 4),
        expected_num_trainable_weights=2,  # scale and bias: the encoder is frozen
    )


CASES = {
    "attention_pooling": attention_pooling,
    "attention_pooling_with_scores": attention_pooling_with_scores,
    "label_encoder": label_encoder,
    "hierarchical_attention_dense": _hierarchical("dense", "dense", token_states=True),
    "hierarchical_attention_bigru_lstm": _hierarchical("bigru", "lstm"),
    "hierarchical_attention_flat_with_scores": hierarchical_attention_flat_with_scores,
    "max_pool_encoder_bilstm": _max_pool_encoder("bilstm", recurrent_dropout=0.1, token_states=False),
    "max_pool_encoder_bigru_token_states": _max_pool_encoder("bigru", recurrent_dropout=0.0, token_states=True),
    **{f"gile_head_{v}": _gile_head(v) for v in GILE_VARIANTS},
    "hierarchical_attention_multilingual": hierarchical_attention_multilingual,
    "gile_head_multilingual": gile_head_multilingual,
    "gile_head_call_time_labels": gile_head_call_time_labels,
    "linear_head": linear_head,
    "cosine_head": cosine_head,
    "wide_head": wide_head,
    "lexical_match_head": lexical_match_head,
    "word_interaction_head": word_interaction_head,
    "word_interaction_head_states": word_interaction_head_states,
    "embedding_match_head": embedding_match_head,
    "hybrid_head": hybrid_head,
    "hybrid_head_per_label_dropout": hybrid_head_per_label_dropout,
    "sentence_encoder": sentence_encoder,
    "sentence_match_head": sentence_match_head,
    **{f"drill_head_{v}": _drill_head_baseline(v) for v in ("bilinear", "dual")},
    "drill_head_tied": drill_head_tied,
    "drill_head_descriptions": drill_head_descriptions,
    "region_lstm_bidirectional_chopped": region_lstm_bidirectional_chopped,
    "region_lstm_full_gates_sequence": region_lstm_full_gates_sequence,
    "region_lstm_side_encoder": region_lstm_side_encoder,
    **{f"region_pooling_{m}": _region_pooling(m) for m in ("max", "average")},
    **{f"text_vectorizer_{name}": _text_vectorizer(flat) for name, flat in (("flat", True), ("hierarchical", False))},
    "tfidf_vectorizer": tfidf_vectorizer,
    "word_piece_vectorizer": word_piece_vectorizer,
}


# Cases of TensorFlow-only layers (tensorflow-text string ops), left out of the JAX-backend run.
TENSORFLOW_ONLY = frozenset(
    name for name in CASES if name.startswith(("text_vectorizer", "tfidf_vectorizer", "word_piece"))
)


def run_case(name, seed=0):
    from keras_labelemb.testing import run_layer_test

    layer_cls, kwargs = CASES[name](np.random.default_rng(seed))
    return run_layer_test(layer_cls, **kwargs)


# ---------------------------------------------------------------- CNLE (issue 14)

CNLE_LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8]], "int32")  # 3 label names / descriptions
CNLE_SEQUENCES = np.array([[0, 2, 3], [1, 3, -1], [2, 3, -1]], "int32")  # teacher forcing: labels, end = 3, -1


def co_attention(rng):
    """Words attend over 3 labels (one padded) and labels over words; attention scores returned.

    `run_layer_test` asks `compute_output_shape(inputs_shape)` before any label is seen, and
    CoAttention's label count is a call-time property: this subclass only fixes that count.
    """
    import keras

    from keras_labelemb.layers import CoAttention

    labels = rng.normal(size=(3, 4)).astype("float32")

    @keras.saving.register_keras_serializable(package="keras_labelemb_tests")
    class CoAttentionOverThreeLabels(CoAttention):
        def compute_output_shape(self, inputs_shape, labels_shape=labels.shape):
            return super().compute_output_shape(inputs_shape, labels_shape)

    return CoAttentionOverThreeLabels, dict(
        init_kwargs={"num_heads": 2, "attention_dim": 6, "return_attention_scores": True},
        input_data=rng.normal(size=(3, 5, 4)).astype("float32"),
        expected_output_shape=((3, 5, 4), (3, 3, 4), (3, 2, 5, 3), (3, 2, 3, 5)),
        mask=sequence_mask(),
        call_kwargs={"labels": labels, "labels_mask": np.array([True, True, False])},
        # The fit step trains the first output, X_fuse, which the label side does not feed: the label side
        # trains in the adaptive_label_decoder cases.
        frozen_weights=("label_attention/", "label_ffn_", "label_layer_norm/"),
    )


def co_attention_without_label_embedding(rng):
    """The "w/o label embedding" ablation: text only, X_fuse = LN(FFN(X) + X)."""
    from keras_labelemb.layers import CoAttention

    return CoAttention, dict(
        init_kwargs={"use_label_embedding": False, "intermediate_dim": 5},
        input_data=rng.normal(size=(3, 5, 4)).astype("float32"),
        expected_output_shape=(3, 5, 4),
        mask=sequence_mask(),
        expected_num_trainable_weights=6,  # two Dense, one LayerNormalization
    )


def _adaptive_label_decoder(output_mode, teacher_forcing=False, encoder=True, text_to_label=True):
    """The decoder head, over the co-attentive encoder (inputs: word vectors) or alone (inputs: X_fin).

    Only the encoder-free cases run the training steps: under JAX (XLA) compiling the gradient of the
    encoder's four BiLSTM passes takes ~30 s per step on 2 CPU cores. The encoder's gradients and mixed precision are
    checked eagerly in tests/test_adaptive_label_decoder.py.
    """

    def case(rng):
        import keras

        from keras_labelemb.layers import AdaptiveLabelDecoder, CoAttentiveEncoder

        def init_kwargs():
            kwargs = {
                "embedding": keras.layers.Embedding(12, 6, mask_zero=True),
                "label_ids": CNLE_LABELS,
                "max_steps": 3,
                "output_mode": output_mode,
            }
            if encoder:
                kwargs["encoder"] = CoAttentiveEncoder(
                    model_dim=4, num_heads=2, use_text_to_label_attention=text_to_label
                )
            return kwargs

        shape = {"logits": (3, 3, 4), "sequence": (3, 3), "multi_hot": (3, 3)}[output_mode]
        return AdaptiveLabelDecoder, dict(
            init_kwargs=init_kwargs,
            input_data=rng.normal(size=(3, 5, 6)).astype("float32"),
            expected_output_shape=shape,
            mask=sequence_mask(),
            call_kwargs={"label_sequence": CNLE_SEQUENCES} if teacher_forcing else None,
            run_training=not encoder,
            run_mixed_precision=not encoder,
            # Embedding rows of words in no label description get no gradient.
            frozen_weights=("embeddings",),
        )

    return case


def adaptive_label_decoder_without_label_embedding(rng):
    """The "w/o label embedding" ablation: per-label input embeddings and a linear classifier."""
    from keras_labelemb.layers import AdaptiveLabelDecoder, CoAttentiveEncoder

    def init_kwargs():
        return {
            "encoder": CoAttentiveEncoder(model_dim=4, num_heads=2, use_label_embedding=False),
            "num_labels": 3,
            "max_steps": 3,
            "output_mode": "sequence",
        }

    return AdaptiveLabelDecoder, dict(
        init_kwargs=init_kwargs,
        input_data=rng.normal(size=(3, 5, 6)).astype("float32"),
        expected_output_shape=(3, 3),
        mask=sequence_mask(),
        run_training=False,  # see _adaptive_label_decoder
        run_mixed_precision=False,
    )


CASES.update(
    {
        "co_attention": co_attention,
        "co_attention_without_label_embedding": co_attention_without_label_embedding,
        "adaptive_label_decoder_teacher_forcing": _adaptive_label_decoder("logits", True, encoder=False),
        "adaptive_label_decoder_greedy_logits": _adaptive_label_decoder("logits", encoder=False),
        "adaptive_label_decoder_multi_hot": _adaptive_label_decoder("multi_hot"),
        "adaptive_label_decoder_sequence_without_text_to_label": _adaptive_label_decoder(
            "sequence", text_to_label=False
        ),
        "adaptive_label_decoder_without_label_embedding": adaptive_label_decoder_without_label_embedding,
    }
)

# CNLE's cases: tests/test_backends.py can run them alone (its group "cnle", to debug them under another backend).
CNLE_CASES = frozenset(name for name in CASES if name.startswith(("co_attention", "adaptive_label_decoder")))
# Configurations whose operations another case of the same layer already runs: the JAX and PyTorch runs leave them
# out (their compile time was a fifth of the JAX CNLE run); TensorFlow runs every case.
OTHER_BACKENDS_SKIP = frozenset(
    (
        "adaptive_label_decoder_greedy_logits",
        "adaptive_label_decoder_sequence_without_text_to_label",
        "adaptive_label_decoder_without_label_embedding",
        "co_attention_without_label_embedding",
        # The biGRU max-pool case runs the same code paths (recurrent dropout is left to TensorFlow, where it is
        # cheaper), and it runs a bidirectional RNN for the HAN case with two (12 s under JAX).
        "max_pool_encoder_bilstm",
        "hierarchical_attention_bigru_lstm",
        # Flat attention and scores: the dense HAN case runs the same attention at both levels.
        "hierarchical_attention_flat_with_scores",
        # Side inputs: the chopped bidirectional case runs RegionLSTM's recurrence under each backend.
        "region_lstm_side_encoder",
    )
)
