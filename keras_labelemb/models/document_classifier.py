"""Wires a document classifier from layers: token ids -> word embedding -> document encoder -> label head."""

import keras

from keras_labelemb.argument_checks import check_positive_int, check_rate
from keras_labelemb.layers import GileHead, HierarchicalAttention, LabelHead, LinearHead
from keras_labelemb.layers.label_head import prior_bias
from keras_labelemb.models.word_embeddings import word_embeddings

__all__ = ["build_encoder", "document_classifier", "gile_han", "gile_wan", "han", "prior_bias", "wan"]


def document_classifier(
    encoder,
    head,
    embedding=None,
    max_tokens=None,
    max_sentences=None,
    max_sentence_length=None,
    num_features=None,
    name=None,
):
    """A functional model from token ids to label logits, over the layers given.

    The model reads token ids `(B, max_tokens)` (flat documents) or `(B,
    max_sentences, max_sentence_length)` (sentences; give those two), looks
    them up in `embedding`, encodes the word vectors with `encoder` and
    scores the labels with `head`:

    - `embedding`: the documents' word table; by default the head's own
      (`head.embedding`), so documents and label descriptions share one table
      and a head that reads descriptions scores labels it never saw
      (`set_labels`). `word_embeddings` makes the table (pretrained vectors,
      and which side fine-tunes them).
    - `encoder`: a layer from word vectors to the document vector `(B, d)`,
      e.g. `HierarchicalAttention(flat=True)` or `MaxPoolEncoder`; one that
      gives `{"pooled", "token_states"}` (`return_token_states=True`) also
      hands the word states to a head that reads tokens.
    - `head`: any `LabelHead`. A head that reads the document's words
      (`head.reads_tokens`) gets `{"pooled", "token_ids"[, "token_states"]}`
      (a HAN's ids read as one sequence); a head that reads tf-idf features
      (a `WideHead`, or a `HybridHead` holding one: wide + deep) makes the
      model take `{"token_ids", "features"}`, the features `(B,
      num_features)` sparse or dense (`keras_labelemb.text.TfidfVectorizer`;
      under JAX, dense).

    For the full workflow from raw strings to label names (vocabulary,
    thresholds, relabelling, export) use `keras_labelemb.tasks.LabelClassifier`;
    this builder is the plain Keras route, for users who vectorize themselves.

    Args:
        encoder: the document encoder layer.
        head: the `LabelHead`.
        embedding: the word `Embedding` of the documents; default `head.embedding`.
        max_tokens: tokens per flat document (None: any).
        max_sentences, max_sentence_length: the sentence layout's sizes.
        num_features: `F`, the width of the tf-idf features a wide head reads.
        name: the model's name; default `"<head>_wan"` or `"<head>_han"`.

    Example:

    >>> import numpy as np
    >>> from keras_labelemb.layers import DrillHead, GileHead, HierarchicalAttention
    >>> embedding, _ = word_embeddings(50, dim=8)
    >>> head = GileHead(embedding, np.array([[2, 3], [4, 0]]), joint_dim=8)
    >>> model = document_classifier(HierarchicalAttention("dense", 8, flat=True), head, max_tokens=5)
    >>> tuple(model(np.ones((2, 5), "int32")).shape)
    (2, 2)
    """
    if not isinstance(head, LabelHead):
        raise ValueError(
            f"`head` must be a LabelHead layer (GileHead, DrillHead, LinearHead, ...). Received: head={head!r:.200}"
        )
    if not isinstance(encoder, keras.layers.Layer):
        raise ValueError(f"`encoder` must be a Keras layer. Received: encoder={encoder!r:.200}")
    if embedding is None:  # the head's table (a hybrid's: its first component's)
        tables = [getattr(part, "embedding", None) for part in [head, *getattr(head, "components", ())]]
        embedding = next((table for table in tables if isinstance(table, keras.layers.Embedding)), None)
        if embedding is None:
            raise ValueError(
                f"{type(head).__name__} holds no word embedding to read the documents with: pass `embedding` "
                f"(e.g. `word_embeddings(vocabulary_size)[0]`). Received: embedding=None, head={head.name!r}"
            )
    elif not isinstance(embedding, keras.layers.Layer):
        raise ValueError(f"`embedding` must be a Keras Embedding layer. Received: embedding={embedding!r:.200}")
    sentences = max_sentences is not None or max_sentence_length is not None
    if sentences and max_tokens is not None:
        raise ValueError(
            "A document is flat (`max_tokens`) or made of sentences (`max_sentences`, `max_sentence_length`), "
            f"not both. Received: max_tokens={max_tokens!r}, max_sentences={max_sentences!r}, "
            f"max_sentence_length={max_sentence_length!r}"
        )
    # The layout the sizes say, else the encoder's own (a HAN built without sizes reads any).
    encoder_flat = getattr(encoder, "flat", None)
    flat = not sentences if (sentences or max_tokens is not None or encoder_flat is None) else encoder_flat
    if encoder_flat is not None and encoder_flat != flat:
        layout = "flat documents (`max_tokens`)" if encoder_flat else "sentences (`max_sentences`, ...)"
        raise ValueError(
            f"The encoder {encoder.name!r} reads {layout}. Received: max_tokens={max_tokens!r}, "
            f"max_sentences={max_sentences!r}, max_sentence_length={max_sentence_length!r}"
        )
    shape = (max_tokens,) if flat else (max_sentences, max_sentence_length)
    ids = keras.Input(shape=shape, dtype="int32", name="token_ids")
    encoded = encoder(embedding(ids))
    pooled, states = (encoded["pooled"], encoded.get("token_states")) if isinstance(encoded, dict) else (encoded, None)
    features = None
    if _reads_features(head) != (num_features is not None):
        raise ValueError(
            "`num_features` is the width of the tf-idf features a wide head (WideHead, or a HybridHead holding "
            f"one) reads: give it with such a head, and only then. Received: num_features={num_features!r}, "
            f"head={head.name!r} ({type(head).__name__})"
        )
    if num_features is not None:
        check_positive_int("num_features", num_features)
        features = keras.Input(shape=(num_features,), sparse=True, name="features")
    logits = apply_head(head, pooled, ids, states, features)
    inputs = ids if features is None else {"token_ids": ids, "features": features}
    short = getattr(head, "variant", None) or getattr(type(head), "registered_name", None) or head.name
    return keras.Model(inputs, logits, name=name or f"{short}_{'wan' if flat else 'han'}")


def build_encoder(embedding, encoder, token_shape):
    """Builds `embedding` and `encoder` for token ids of `token_shape` (`(T,)` or `(K, T)`); returns `encoder`.

    Built before the head is constructed, their weights draw from the global seed first, as they would if the
    head were made after the model had read its input: one seed then gives the same model whichever order the
    layers are written in (the order of the benchmarks' recorded runs).
    """
    if not embedding.built:
        embedding.build((None, *token_shape))
    if not encoder.built:
        encoder.build((None, *token_shape, embedding.output_dim))
    return encoder


def _reads_features(head):
    return head.reads_features or any(c.reads_features for c in getattr(head, "components", ()))


def apply_head(head, pooled, token_ids, token_states=None, features=None):
    """Calls `head` on what it reads: the pooled vector, the features, or the document dict (`reads_tokens`)."""
    if head.reads_features:
        return head(features)
    if not head.reads_tokens:
        return head(pooled)
    if len(token_ids.shape) == 3:
        # -1: a HAN built without `max_sentences` or `max_sentence_length` has no static token count.
        token_ids = keras.layers.Reshape((-1,), name="flat_token_ids")(token_ids)
        if token_states is not None:
            token_states = keras.layers.Reshape((-1, token_states.shape[-1]), name="flat_token_states")(token_states)
    document = {"pooled": pooled, "token_ids": token_ids}
    if token_states is not None:
        document["token_states"] = token_states
    if features is not None:
        document["features"] = features
    return head(document)


def _attention_classifier(
    vocabulary_size,
    head_for,
    flat,
    sizes,
    embedding_dim,
    word_vectors,
    fine_tune,
    encoder,
    units,
    dropout,
    name,
    reads_no_labels=False,
):
    """The seeds' attention classifiers: the table, a HAN/WAN of `encoder` cells, and `head_for(table)`."""
    check_rate("dropout", dropout)
    if fine_tune == "documents" and reads_no_labels:
        raise ValueError(
            "fine_tune='documents' freezes the vectors labels are read through; a linear head reads no labels. "
            "Received: fine_tune='documents'"
        )
    embedding, label_embedding = word_embeddings(vocabulary_size, embedding_dim, word_vectors, fine_tune)
    document_encoder = HierarchicalAttention(
        word_encoder=encoder,
        word_units=units,
        sentence_encoder=encoder,
        sentence_units=units,
        flat=flat,
        dropout=dropout,
        name="document_encoder",
    )
    token_shape = (sizes["max_tokens"],) if flat else (sizes["max_sentences"], sizes["max_sentence_length"])
    build_encoder(embedding, document_encoder, token_shape)
    head = head_for(label_embedding if label_embedding is not None else embedding)
    return document_classifier(document_encoder, head, embedding=embedding, name=name, **sizes)


def _gile_head(label_ids, joint_dim, bias_initializer):
    """`table -> GileHead` of the seed builders, its bias at the label prior unless given."""
    bias = bias_initializer or prior_bias(len(label_ids))
    return lambda table: GileHead(table, label_ids, joint_dim=joint_dim, bias_initializer=bias, name="gile_head")


def _linear_head(num_labels, bias_initializer):
    """`table -> LinearHead` of the baselines (the table is the encoder's only)."""
    bias = bias_initializer or prior_bias(num_labels)
    return lambda table: LinearHead(num_labels, bias_initializer=bias, name="linear_head")


def gile_han(
    vocabulary_size,
    label_ids,
    max_sentences=None,
    max_sentence_length=None,
    joint_dim=500,
    embedding_dim=None,
    word_vectors=None,
    fine_tune="all",
    encoder="dense",
    units=100,
    dropout=0.2,
    bias_initializer=None,
    name=None,
):
    """GILE-HAN (Pappas & Henderson, TACL 2019): a hierarchical attention encoder and the GILE output layer.

    One word table reads documents and label descriptions (`label_ids`, `(L,
    Lw)`), so the model scores labels it never saw once relabelled
    (`keras_labelemb.models.set_labels`). The table is new (`embedding_dim`,
    default 100) or starts from `word_vectors` (`(vocabulary_size, d)`, e.g.
    GloVe, which matter on small data), fine-tuned as `fine_tune` says
    (`word_embeddings`: `"all"`, `"none"`, or `"documents"`: labels read a
    frozen copy). `encoder` is the attention encoder's cell at both levels
    (`"dense"`, `"gru"`, `"bigru"`, `"lstm"`, `"bilstm"`) with `units` each
    and `dropout` on sentence and document vectors. The output bias starts
    at `bias_initializer`, by default `prior_bias(L)`, the log-odds of about
    one label per document.

    >>> import numpy as np
    >>> model = gile_han(50, np.array([[2, 3], [4, 0]]), max_sentences=3, max_sentence_length=5,
    ...                  units=8, joint_dim=8)
    >>> tuple(model(np.ones((2, 3, 5), "int32")).shape)
    (2, 2)
    """
    return _attention_classifier(
        vocabulary_size,
        _gile_head(label_ids, joint_dim, bias_initializer),
        False,
        {"max_sentences": max_sentences, "max_sentence_length": max_sentence_length},
        embedding_dim,
        word_vectors,
        fine_tune,
        encoder,
        units,
        dropout,
        name,
    )


def gile_wan(
    vocabulary_size,
    label_ids,
    max_tokens=None,
    joint_dim=500,
    embedding_dim=None,
    word_vectors=None,
    fine_tune="all",
    encoder="dense",
    units=100,
    dropout=0.2,
    bias_initializer=None,
    name=None,
):
    """GILE-WAN: a flat word attention encoder and the GILE output layer. Arguments as `gile_han`.

    >>> import numpy as np
    >>> model = gile_wan(50, np.array([[2, 3], [4, 0]]), max_tokens=6, units=8, joint_dim=8)
    >>> model.get_layer("gile_head").joint_dim
    8
    """
    return _attention_classifier(
        vocabulary_size,
        _gile_head(label_ids, joint_dim, bias_initializer),
        True,
        {"max_tokens": max_tokens},
        embedding_dim,
        word_vectors,
        fine_tune,
        encoder,
        units,
        dropout,
        name,
    )


def han(
    vocabulary_size,
    num_labels,
    max_sentences=None,
    max_sentence_length=None,
    embedding_dim=None,
    word_vectors=None,
    fine_tune="all",
    encoder="dense",
    units=100,
    dropout=0.2,
    bias_initializer=None,
    name=None,
):
    """Baseline HAN: `gile_han`'s encoder with the usual linear output layer (one weight vector per label)."""
    return _attention_classifier(
        vocabulary_size,
        _linear_head(num_labels, bias_initializer),
        False,
        {"max_sentences": max_sentences, "max_sentence_length": max_sentence_length},
        embedding_dim,
        word_vectors,
        fine_tune,
        encoder,
        units,
        dropout,
        name,
        reads_no_labels=True,
    )


def wan(
    vocabulary_size,
    num_labels,
    max_tokens=None,
    embedding_dim=None,
    word_vectors=None,
    fine_tune="all",
    encoder="dense",
    units=100,
    dropout=0.2,
    bias_initializer=None,
    name=None,
):
    """Baseline WAN: `gile_wan`'s encoder with a linear output layer.

    >>> import numpy as np
    >>> wan(50, 3, max_tokens=6, units=8).output_shape
    (None, 3)
    """
    return _attention_classifier(
        vocabulary_size,
        _linear_head(num_labels, bias_initializer),
        True,
        {"max_tokens": max_tokens},
        embedding_dim,
        word_vectors,
        fine_tune,
        encoder,
        units,
        dropout,
        name,
        reads_no_labels=True,
    )
