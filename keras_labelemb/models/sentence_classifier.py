"""Builds a classifier over a pretrained sentence encoder: word-piece ids -> `SentenceEncoder` -> a label head."""

import keras

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers import SentenceEncoder
from keras_labelemb.models.head_specs import (
    OVER_SENTENCE_ENCODER,
    apply_head,
    build_head,
    check_no_label_set_beside,
    head_spec,
)


def _types(spec):
    return [spec["type"]] + [component["type"] for component in spec.get("components", [])]


def sentence_classifier(encoder, label_ids=None, num_labels=None, head="sentence", sequence_length=None, name=None):
    """A zero-shot-ready classifier: the encoder reads documents and label descriptions alike.

    The model maps word-piece ids `(B, T)` (a `WordPieceVectorizer`'s) through
    `encoder` to the document dict (pooled sentence vector, token states and
    ids) and scores labels with `head`, whose shared embedding is the
    encoder:

    - `"sentence"`: `SentenceMatchHead`, the cosine of the document's and
      each description's sentence vectors;
    - `{"type": "hybrid", "components": ["lexical", "sentence"],
      "standardize": True}`: beside it tf-idf matching of the word pieces,
      both z-scored over the labels and weighed (untrained: their fusion;
      give `"lexical"` the vectorizer's `special_ids` as `ignored_ids` and
      `adapt` the head's idf on the training documents);
    - `"lexical"`, `"linear"`, and hybrids of these heads (the others look
      word vectors up in the shared embedding, which gives sentences here).

    Spec options as in `document_classifier`. Logit biases start at 0.

    Args:
        encoder: the `SentenceEncoder` (frozen unless built with
            `fine_tune=True`, or `fine_tune="documents"` to train it on
            the documents and read descriptions with a frozen copy).
        label_ids: `(L, Lw)` word-piece ids of the label descriptions.
        num_labels: the label count, for a `"linear"` head without
            descriptions.
        head: a head name or spec (above), or a `LabelHead`.
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
    if isinstance(head, keras.layers.Layer):
        check_no_label_set_beside(head, label_ids, num_labels)
        parts = [head, *getattr(head, "components", [])]
        others = [p.name for p in parts if getattr(p, "embedding", None) not in (None, encoder)]
        if others or all(getattr(p, "embedding", None) is None for p in parts):
            raise ValueError(
                "A head layer must read labels with the model's own `encoder` (as its `embedding`), or its label "
                f"vectors live in another space. Received: head={head.name!r}, reading with another embedding: "
                f"{others or 'none'}"
            )
        layer = head
    else:
        spec = head_spec(head)
        others = sorted(set(_types(spec)) - set(OVER_SENTENCE_ENCODER))
        if others:
            raise ValueError(
                "A sentence encoder gives sentence vectors, not word vectors: heads from "
                f"{list(OVER_SENTENCE_ENCODER)} (or hybrids of them) read it. Received: head with {others}"
            )
        count = len(label_ids) if label_ids is not None else num_labels
        layer = build_head(spec, encoder, encoder.output_dim, label_ids, count, "zeros")
    ids = keras.Input((sequence_length,), dtype="int32", name="token_ids")
    document = encoder(ids)
    logits = apply_head(layer, document["pooled"], document["token_ids"], document["token_states"])
    return keras.Model(ids, logits, name=name or "sentence_classifier")
