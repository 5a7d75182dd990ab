"""Builds a classifier over a pretrained sentence encoder: word-piece ids -> `SentenceEncoder` -> a label head."""

import keras

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers import LexicalMatchHead, SentenceEncoder, SentenceMatchHead
from keras_labelemb.models.document_classifier import apply_head


def sentence_classifier(encoder, label_ids=None, head=None, sequence_length=None, name=None):
    """A zero-shot-ready classifier: the encoder reads documents and label descriptions alike.

    The model maps word-piece ids `(B, T)` (a `WordPieceVectorizer`'s) through
    `encoder` to the document dict (pooled sentence vector, token states and
    ids) and scores labels with `head`:

    - None (default): `SentenceMatchHead(encoder, label_ids)`, the cosine of
      the document's and each description's sentence vectors;
    - any `LabelHead` that reads labels with `encoder` as its embedding, e.g.
      `HybridHead([LexicalMatchHead(encoder, ignored_ids=vectorizer.special_ids),
      SentenceMatchHead(encoder)], label_ids=..., standardize=True)` (tf-idf
      matching of the word pieces beside the cosine, both z-scored over the
      labels; `adapt` the lexical head's idf on the training documents), or
      a `LinearHead` (no descriptions).

    Args:
        encoder: the `SentenceEncoder` (frozen unless built with
            `fine_tune=True`, or `fine_tune="documents"` to train it on
            the documents and read descriptions with a frozen copy).
        label_ids: `(L, Lw)` word-piece ids of the label descriptions (for the default head).
        head: None or a `LabelHead` (above).
        sequence_length: `T` of the input (default: any, up to the
            backbone's positions).
        name: the model's name. Default `"sentence_classifier"`.

    Example:

    >>> import keras_hub
    >>> backbone = keras_hub.models.BertBackbone(20, 1, 2, 8, 16, max_sequence_length=6)
    >>> model = sentence_classifier(SentenceEncoder(backbone), np.array([[2, 5, 7, 3], [2, 9, 3, 0]]))
    >>> model.predict(np.array([[2, 5, 7, 3, 0, 0]]), verbose=0).shape
    (1, 2)
    """
    if not isinstance(encoder, SentenceEncoder):
        raise ValueError(
            "`encoder` must be a SentenceEncoder (e.g. `SentenceEncoder(load_minilm()[0])`). "
            f"Received: encoder={encoder!r}"
        )
    sequence_length = check_positive_int("sequence_length", sequence_length, allow_none=True)
    if head is None:
        if label_ids is None:
            raise ValueError("The default head scores label descriptions: pass `label_ids`. Received: None")
        layer = SentenceMatchHead(encoder, label_ids, name="sentence_head")
    elif isinstance(head, keras.layers.Layer):
        if label_ids is not None:
            raise ValueError(
                "A LabelHead layer brings its own label set: leave `label_ids` unset. "
                f"Received: label_ids with head={head.name!r}"
            )
        parts = [head, *getattr(head, "components", [])]
        others = [p.name for p in parts if getattr(p, "embedding", None) not in (None, encoder)]
        if others:
            raise ValueError(
                "A head layer must read labels with the model's own `encoder` (as its `embedding`), or its label "
                f"vectors live in another space. Received: head={head.name!r}, reading with another embedding: "
                f"{others}"
            )
        # The sentence encoder gives sentence vectors, not word vectors: a head that looks word vectors up in
        # its table (GILE, DRILL, word interaction, ...) cannot read labels through it; exact word matching can.
        word_vector_heads = [
            p.name
            for p in getattr(head, "components", None) or [head]
            if p.reads_descriptions and not p.reads_sentence_vectors and not isinstance(p, LexicalMatchHead)
        ]
        if word_vector_heads:
            raise ValueError(
                "A sentence encoder gives sentence vectors, not word vectors: SentenceMatchHead, LexicalMatchHead, "
                f"LinearHead and hybrids of them read it. Received: heads that need word vectors {word_vector_heads}"
            )
        layer = head
    else:
        raise ValueError(f"`head` must be None or a LabelHead layer. Received: head={head!r:.200}")
    ids = keras.Input((sequence_length,), dtype="int32", name="token_ids")
    document = encoder(ids)
    logits = apply_head(layer, document["pooled"], document["token_ids"], document["token_states"])
    return keras.Model(ids, logits, name=name or "sentence_classifier")
