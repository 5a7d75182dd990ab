"""Builds an attention document classifier with a chosen label head."""

import math

import keras
import numpy as np

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers import HierarchicalAttention, LabelHead, MaxPoolEncoder
from keras_labelemb.models.head_specs import (
    HEAD_CLASSES,
    HEAD_OPTIONS,
    HEAD_TYPES,
    apply_head,
    build_head,
    check_no_label_set_beside,
    head_spec,
)
from keras_labelemb.models.word_embeddings import embedding_spec, word_embeddings
from keras_labelemb.renamed import refuse_arguments

__all__ = ["HEAD_OPTIONS", "HEAD_TYPES", "build_head", "document_classifier", "head_spec"]


def _output_bias_start(prior_logit, num_labels):
    if prior_logit == "auto":
        return -math.log(num_labels) if num_labels else 0.0
    if prior_logit is None:
        return 0.0
    if isinstance(prior_logit, bool) or not isinstance(prior_logit, (int, float)) or not math.isfinite(prior_logit):
        raise ValueError(
            f"`prior_logit` must be 'auto', None or a finite number. Received: prior_logit={prior_logit!r}"
        )
    return float(prior_logit)


def document_classifier(
    vocabulary_size,
    label_ids=None,
    num_labels=None,
    head="gile",
    flat=False,
    max_sentences=None,
    max_sentence_length=None,
    max_tokens=None,
    embedding=None,
    encoder="dense",
    prior_logit="auto",
    wide_features=None,
    name=None,
    **renamed,
):
    """Embedding -> HierarchicalAttention (HAN, or WAN when `flat`) -> label head.

    One `Embedding(mask_zero=True)` serves document words and label words, so
    every head that reads label descriptions (GILE and its ablations, DRILL)
    can score labels it never saw in training; `"linear"` is the usual
    per-label baseline (`LinearHead`) on the same encoder.

    The head is given one of three ways, so that an argument belonging to
    another head cannot be silently ignored:

    - a name: `"gile"` (default), a GILE ablation (`"bilinear"`,
      `"bilinear_yh15"`, `"only_label"`, `"only_input"`), `"drill"`,
      `"linear"`, `"lexical"` (`LexicalMatchHead`), `"interaction"`
      (`WordInteractionHead`) or `"embedding"` (`EmbeddingMatchHead`);
    - a dict spec: `{"type": name, **options}` (`head_specs.HEAD_CLASSES`)
      where the options are that head's constructor arguments other than
      the ones the builder sets (embedding, label set, output bias, name);
      `"type"` defaults to `"gile"`. E.g. `{"joint_dim": 300, "activation":
      "relu"}`, `{"type": "drill", "depth": 4, "dropout": 0.2}`, and a
      `HybridHead` over other heads' specs, `{"type": "hybrid", "components":
      ["gile", "lexical", "interaction", "linear"]}` (the components' biases
      start at 0, the hybrid's at `prior_logit`). Unknown keys raise.
      Heads that read the document's words (lexical, interaction, embedding, hybrid)
      get `{"pooled": h, "token_ids": ids}` (a HAN's ids read as one
      sequence); call their `adapt(ids)` on training documents to set idf;
      GILE's `joint_dim` defaults to 500; DRILL as a classifier defaults to
      `tanh` and projects the document vector into the word-vector space
      (`input_projection`) when their widths differ;
    - a `LabelHead` layer: used as it is. If it holds an `embedding`, that
      embedding is the model's word embedding too (the head shares it, as
      keras-hub's `MaskedLMHead` does); then the `embedding` spec holds at
      most its `dropout`.

    The word embedding is one spec, `embedding={"dim", "initializer",
    "trainable", "vectors", "fine_tune", "dropout"}` (each key optional).
    Pretrained word vectors (`"vectors"`, e.g. from
    `keras_labelemb.text.load_glove_6b`) start the word embedding, and
    `"fine_tune"` says what trains them:

    - `"all"` (default): one table, fine-tuned by documents and labels alike;
    - `"none"`: frozen everywhere;
    - `"documents"`: the encoder's table fine-tunes, while the head reads
      label descriptions through a second, frozen copy of the pretrained
      vectors (`label_word_embedding`). Labels, seen or unseen (zero-shot
      `set_labels`), then stay in the space the vectors were trained in, and
      seen labels cannot drift away from the unseen ones they resemble.

    Wide + deep (`wide_features=F`): the model takes a second input,
    `"features"`, the documents' `(B, F)` tf-idf vectors
    (`keras_labelemb.text.TfidfVectorizer`, sparse or dense), and the head
    becomes a `HybridHead` whose components are the head given (or a
    hybrid's components) and a `WideHead` over the features: `logits = a_1
    deep + a_2 wide + b`, trained together. The wide path knows the labels it
    was built with; labels added later are scored by the deep path alone.
    Under JAX, feed dense features (`TfidfVectorizer(sparse=False)`): Keras
    refuses an input dict that mixes a sparse (BCOO) and a dense array.

    Every head built from a name or spec starts its output bias at
    `prior_logit`, by default the log-odds of about one label per document.
    With a zero bias every label starts at probability 0.5 although almost all
    are negative for any document, so the first updates go into pushing every
    score down (the prior initialisation of Lin et al. 2017, "Focal Loss for
    Dense Object Detection"); on Reuters the zero bias cost every head, DRILL
    most.

    Args:
        vocabulary_size: size of the word vocabulary (0 = padding, 1 = unknown).
        label_ids: `(L, Lw)` token ids of the label descriptions.
        num_labels: label count of a linear head when no `label_ids`.
        head: a name, a dict spec or a `LabelHead` (above).
        flat: WAN over `(B, max_tokens)` instead of HAN over
            `(B, max_sentences, max_sentence_length)`.
        embedding: None or a dict spec of the word embedding
            (`word_embeddings.EMBEDDING_DEFAULTS`): `"dim"`, the word vector
            size `d` (default 100); `"initializer"` (default `"uniform"`);
            `"trainable"` (False freezes the word vectors; default True);
            `"vectors"`, `(vocabulary_size, d)` pretrained vectors (row 0 is
            padding; then `dim` is `d` and `initializer` and `trainable` stay
            unset); `"fine_tune"`, `"all"` (default with vectors), `"none"`
            or `"documents"` (above); `"dropout"` on word vectors (default 0).
            Unknown keys raise.
        encoder: a name or a spec `{"type": name, **options}` (as `head`;
            `"type"` defaults to `"dense"`). The attention encoder
            (`HierarchicalAttention`) with `"dense"`, `"gru"`, `"bigru"`,
            `"lstm"` or `"bilstm"` at both levels takes `units` (per encoder,
            per direction for bi-RNNs; default 100), `attention_units`
            (default: the encoder's output width) and `dropout` (on sentence
            and document vectors; default 0.2), e.g. `{"type": "bigru",
            "units": 50}`. `"max_pool"` is the regularised BiLSTM with max
            pooling over time (`MaxPoolEncoder`: `units`,
            `recurrent_dropout`, `word_dropout`; flat documents), e.g.
            `{"type": "max_pool", "units": 128, "word_dropout": 0.1,
            "recurrent_dropout": 0.2}`. Unknown options raise.
        prior_logit: initial output bias of a head built here: `"auto"`
            (default) `-log(L)`; a float, e.g. `log(p / (1 - p))` of the mean
            label frequency `p`; `None` for zeros.
        wide_features: `F`, the width of the tf-idf features of a wide +
            deep model (above). Default None (no wide path).

    Returns:
        A functional `keras.Model` from token ids (with `wide_features`: the
        dict `{"token_ids", "features"}`) to label logits `(B, L)`.

    Example:

    >>> import numpy as np
    >>> labels = np.array([[2, 3], [4, 0]])
    >>> model = document_classifier(50, labels, max_sentences=3, max_sentence_length=5,
    ...                             encoder={"units": 8}, head={"joint_dim": 8})
    >>> tuple(model(np.ones((2, 3, 5), "int32")).shape)
    (2, 2)
    >>> drill = document_classifier(50, labels, flat=True, max_tokens=5, encoder={"units": 8},
    ...                             head={"type": "drill", "depth": 1})
    >>> vectors = np.random.default_rng(0).normal(size=(50, 8)).astype("float32")
    >>> frozen_labels = document_classifier(50, labels, flat=True, max_tokens=5, encoder={"units": 8},
    ...                                     head={"joint_dim": 8},
    ...                                     embedding={"vectors": vectors, "fine_tune": "documents"})
    >>> [(layer.name, layer.trainable) for layer in (frozen_labels.layers[1], frozen_labels.layers[-1].embedding)]
    [('word_embedding', True), ('label_word_embedding', False)]
    >>> document_classifier(50, labels, flat=True, max_tokens=5, head={"type": "drill", "joint_dim": 8, "foo": 1})
    Traceback (most recent call last):
    ...
    ValueError: A 'drill' head takes [...]; ['foo'] belong to another head or to the builder ...
    """
    refuse_arguments("document_classifier", renamed)
    if isinstance(head, LabelHead):
        layer, spec = head, None
        check_no_label_set_beside(head, label_ids, num_labels)
    else:
        layer, spec = None, with_wide_path(head_spec(head), wide_features)
    if layer is not None and wide_features is not None and not _reads_features(layer):
        raise ValueError(
            "`wide_features` feeds a head that reads tf-idf features (a WideHead, or a HybridHead holding one): "
            f"build the head from a name or spec, or give it a wide component. Received: head={layer.name!r}"
        )
    given_embedding, embedding = embedding or {}, embedding_spec(embedding, vocabulary_size)
    word_embedding = layer.embedding if layer is not None else None
    if word_embedding is not None:
        given = {key: value for key, value in given_embedding.items() if key != "dropout"}
        if given:
            given = {key: np.shape(value) if key == "vectors" else value for key, value in given.items()}
            raise ValueError(
                "The head's own embedding is the model's word embedding: the `embedding` spec may hold its "
                f"`dropout` only. Received: embedding keys {sorted(given)} ({given})"
            )
        if word_embedding.input_dim != vocabulary_size:
            raise ValueError(
                f"The head's embedding has {word_embedding.input_dim} rows. Received: vocabulary_size={vocabulary_size}"
            )
    label_embedding = None
    if embedding["fine_tune"] == "documents" and (layer is not None or spec["type"] in ("linear", "lexical")):
        reads = "is a layer with its own embedding (or none)" if layer is not None else "reads no label descriptions"
        raise ValueError(
            f"embedding['fine_tune']='documents' freezes the vectors the head reads labels through; this head "
            f"{reads}. Received: head={head!r}"
        )
    if word_embedding is None:
        word_embedding, label_embedding = word_embeddings(vocabulary_size, embedding)
    if flat:
        other_layout = {"max_sentences": max_sentences, "max_sentence_length": max_sentence_length}
    else:
        other_layout = {"max_tokens": max_tokens}
    ignored = {name: value for name, value in other_layout.items() if value is not None}
    if ignored:
        sizes = "`max_tokens`" if flat else "`max_sentences` and `max_sentence_length`"
        raise ValueError(
            f"flat={flat} reads documents sized by {sizes}: the sizes given belong to flat={not flat}. Received: "
            + ", ".join(f"{name}={value!r}" for name, value in ignored.items())
        )
    shape, kind = ((max_tokens,), "wan") if flat else ((max_sentences, max_sentence_length), "han")
    ids = keras.Input(shape=shape, dtype="int32", name="token_ids")
    words = word_embedding(ids)
    if embedding["dropout"]:
        words = keras.layers.Dropout(embedding["dropout"], name="embedding_dropout")(words)
    # A head that reads the tokens also gets the word encoder's states (flattened over sentences).
    reads_tokens = layer.reads_tokens if layer is not None else HEAD_CLASSES[spec["type"]].reads_tokens
    encoder = encoder_spec(encoder)
    if encoder["type"] == "max_pool":
        encoded = max_pool_encoder(encoder, flat, reads_tokens)(words)
    else:
        encoded = HierarchicalAttention(
            word_encoder=encoder["type"],
            word_units=encoder["units"],
            sentence_encoder=encoder["type"],
            sentence_units=encoder["units"],
            attention_units=encoder["attention_units"],
            flat=flat,
            dropout=encoder["dropout"],
            return_token_states=reads_tokens,
            name="document_encoder",
        )(words)
    document, states = (encoded["pooled"], encoded["token_states"]) if reads_tokens else (encoded, None)
    if layer is None:
        count = len(label_ids) if label_ids is not None else num_labels
        bias_initializer = keras.initializers.Constant(_output_bias_start(prior_logit, count))
        head_embedding = label_embedding if label_embedding is not None else word_embedding
        layer = build_head(spec, head_embedding, document.shape[-1], label_ids, count, bias_initializer)
    features = None
    if wide_features is not None:
        features = keras.Input(shape=(wide_features,), sparse=True, name="features")
    logits = apply_head(layer, document, ids, states, features)
    head_name = spec.get("variant", spec["type"]) if spec is not None else type(layer).__name__.lower()
    inputs = ids if features is None else {"token_ids": ids, "features": features}
    return keras.Model(inputs, logits, name=name or f"{head_name}_{kind}")


ATTENTION_ENCODERS = ("dense", "gru", "bigru", "lstm", "bilstm")
# The attention encoder's options and their defaults (`HierarchicalAttention` at both levels).
ATTENTION_OPTIONS = {"units": 100, "attention_units": None, "dropout": 0.2}


def encoder_spec(encoder):
    """`encoder` (a name or a dict spec) as a full spec: `"type"` (default `"dense"`) and, for the attention
    encoders, every option with its default.

    >>> encoder_spec("bigru")
    {'units': 100, 'attention_units': None, 'dropout': 0.2, 'type': 'bigru'}
    >>> encoder_spec({"units": 8})
    {'units': 8, 'attention_units': None, 'dropout': 0.2, 'type': 'dense'}
    """
    if isinstance(encoder, str):
        spec = {"type": encoder}
    elif isinstance(encoder, dict):
        spec = {"type": "dense", **encoder}
    else:
        raise ValueError(f"`encoder` must be a name or a dict spec. Received: encoder={encoder!r}")
    kind = spec["type"]
    if kind == "max_pool":
        return spec  # MaxPoolEncoder checks its own options
    if kind not in ATTENTION_ENCODERS:
        raise ValueError(
            f"`encoder` type must be one of {[*ATTENTION_ENCODERS, 'max_pool']}. Received: encoder={encoder!r}"
        )
    unknown = sorted(set(spec) - {"type", *ATTENTION_OPTIONS})
    if unknown:
        raise ValueError(
            f"A {kind!r} encoder takes {sorted(ATTENTION_OPTIONS)}; {unknown} belong to another encoder "
            f"('max_pool': units, word_dropout, recurrent_dropout). Received: encoder={encoder!r}"
        )
    return {**ATTENTION_OPTIONS, **spec}


def max_pool_encoder(spec, flat, return_token_states):
    """The `MaxPoolEncoder` an encoder spec `{"type": "max_pool", **options}` describes (flat documents only)."""
    options = dict(spec)
    options.pop("type")
    if not flat:
        raise ValueError(f"A max-pooling encoder reads flat documents: pass `flat=True`. Received: encoder={spec!r}")
    return MaxPoolEncoder(return_token_states=return_token_states, name="document_encoder", **options)


def _reads_features(head):
    return head.reads_features or any(c.reads_features for c in getattr(head, "components", ()))


def with_wide_path(spec, wide_features):
    """`spec` with a wide component (a hybrid of the head and `"wide"`) when `wide_features` is set.

    >>> with_wide_path({"type": "gile"}, 1000)
    {'type': 'hybrid', 'components': [{'type': 'gile'}, {'type': 'wide'}]}
    """
    if wide_features is None:
        return spec
    check_positive_int("wide_features", wide_features)
    components = spec["components"] if spec["type"] == "hybrid" else [spec]
    if spec["type"] == "wide":
        raise ValueError(
            "A wide head alone reads no words: use `WideHead` on the features (the wide model), or give a deep "
            f"head with `wide_features`. Received: head={spec!r}"
        )
    if not any(component["type"] == "wide" for component in components):
        components = list(components) + [{"type": "wide"}]
    base = spec if spec["type"] == "hybrid" else {"type": "hybrid"}
    return {**base, "components": components}


def gile_han(vocabulary_size, label_ids, max_sentences, max_sentence_length, **kwargs):
    """GILE-HAN: hierarchical attention encoder with the GILE output layer. See `document_classifier`."""
    kwargs.setdefault("head", "gile")
    return document_classifier(
        vocabulary_size, label_ids, max_sentences=max_sentences, max_sentence_length=max_sentence_length, **kwargs
    )


def gile_wan(vocabulary_size, label_ids, max_tokens, **kwargs):
    """GILE-WAN: flat word attention encoder with the GILE output layer. See `document_classifier`."""
    kwargs.setdefault("head", "gile")
    return document_classifier(vocabulary_size, label_ids, flat=True, max_tokens=max_tokens, **kwargs)


def han(vocabulary_size, num_labels, max_sentences, max_sentence_length, **kwargs):
    """Baseline HAN: same encoder as `gile_han`, usual linear output layer (one weight vector per label)."""
    kwargs.setdefault("head", "linear")
    return document_classifier(
        vocabulary_size,
        num_labels=num_labels,
        max_sentences=max_sentences,
        max_sentence_length=max_sentence_length,
        **kwargs,
    )


def wan(vocabulary_size, num_labels, max_tokens, **kwargs):
    """Baseline WAN: same encoder as `gile_wan`, linear output layer."""
    kwargs.setdefault("head", "linear")
    return document_classifier(vocabulary_size, num_labels=num_labels, flat=True, max_tokens=max_tokens, **kwargs)
