"""CNLE (Liu et al., Neurocomputing 2022): co-attentive encoder + adaptive label decoder (trained: `training`)."""

import keras

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers import AdaptiveLabelDecoder, CoAttentiveEncoder
from keras_labelemb.models.word_embeddings import word_embeddings

ABLATIONS = (None, "no_label_embedding", "no_text_to_label_attention")


def cnle(
    vocabulary_size,
    label_ids=None,
    max_tokens=None,
    num_labels=None,
    multi_label=True,
    max_steps=None,
    ablation=None,
    model_dim=256,
    num_heads=3,
    attention_dim=150,
    intermediate_dim=None,
    dropout=0.0,
    embedding_dim=None,
    word_vectors=None,
    fine_tune="all",
    output_mode="multi_hot",
    name=None,
):
    """CNLE: token ids `(B, max_tokens)` -> the decoded label set of each text.

    One `Embedding(mask_zero=True)` reads the text and the label names or
    descriptions (`label_ids`, `(c, Lw)`; their row order is the label
    sequence). The `AdaptiveLabelDecoder` head holds the label set and the
    `CoAttentiveEncoder` (projections to the model width, one BiLSTM shared by
    text and labels, `CoAttention`, final BiLSTMs whose text states start the
    decoder), and decodes greedily for `max_steps` steps. The model returns
    `output_mode` of the decoder: by default the multi-hot decoded sets
    `(B, c)`. Train it as a task, `LabelClassifier.from_model(model).fit(ids,
    targets)` (teacher forcing with `LabelSequenceLoss` and `cnle_optimizer()`),
    or through `cnle_training_model(model)` in your own loop; its targets come
    from `keras_labelemb.text.label_sequences`.

    The encoder's options default to the paper's: `model_dim=256`,
    `num_heads=3`, `attention_dim=150`, `intermediate_dim=None` (the model
    width) and `dropout=0`. The word embedding is `keras_labelemb.models.
    word_embeddings.word_embeddings(vocabulary_size, embedding_dim,
    word_vectors, fine_tune)`: by default a new trainable table of 100
    dimensions. `word_vectors` start the table from pretrained vectors and
    `fine_tune` says what trains it: `"all"` (default), `"none"` (frozen, as
    the paper trained) or `"documents"` (labels are read through a frozen
    copy of the vectors).

    Ablations (paper section 5.1; `CoAttention` documents what each removes):
    `"no_text_to_label_attention"`, and `"no_label_embedding"`, which reads no
    label description: its decoder has per-label weights (pass `label_ids`
    or `num_labels` for the count).

    Args:
        vocabulary_size: word vocabulary size (0 = padding).
        label_ids: `(c, Lw)` token ids of the label names / descriptions.
        max_tokens: text length `m`.
        num_labels: label count for `"no_label_embedding"` without `label_ids`.
        multi_label: False: one label per text (one decoding step).
        max_steps: decoding steps, end symbol included (multi-label).
        ablation: None, `"no_label_embedding"` or `"no_text_to_label_attention"`.
        model_dim: the encoder width `d` (even; BiLSTMs of `d / 2` per
            direction). Default 256 (the paper).
        num_heads: attention heads `p`. Default 3 (the paper).
        attention_dim: the attention width `d_h`. Default 150 (the paper).
        intermediate_dim: the feed-forward width; default None: `model_dim`.
        dropout: the encoder's dropout rate. Default 0 (the paper).
        embedding_dim: width of a new word table (default 100); with
            `word_vectors`, leave it unset or give their width.
        word_vectors: None (a new table) or a `(vocabulary_size, d)` matrix of
            pretrained word vectors, row 0 padding.
        fine_tune: `"all"` (default), `"none"` or `"documents"`: what trains
            the word table (see above; `"documents"` needs `word_vectors`).
        output_mode: the decoder's (`"multi_hot"`, `"sequence"`, `"logits"`).
        name: model name; default `"cnle"` (or `"cnle_<ablation>"`).

    Example:

    >>> import numpy as np
    >>> model = cnle(40, np.array([[2, 3], [4, 0], [5, 6]]), max_tokens=7, max_steps=3,
    ...              model_dim=8, num_heads=2, attention_dim=4, embedding_dim=6)
    >>> tuple(model(np.ones((2, 7), "int32")).shape)
    (2, 3)
    """
    if ablation not in ABLATIONS:
        raise ValueError(f"`ablation` must be one of {list(ABLATIONS)}. Received: ablation={ablation!r}")
    check_positive_int("vocabulary_size", vocabulary_size)
    check_positive_int("max_tokens", max_tokens)
    reads_labels = ablation != "no_label_embedding"
    if reads_labels and label_ids is None:
        raise ValueError("CNLE reads the label names or descriptions: pass `label_ids`. Received: label_ids=None")
    if not reads_labels:
        count = len(label_ids) if label_ids is not None else num_labels
        if count is None:
            raise ValueError("Pass `label_ids` or `num_labels` for the label count. Received: both None")
        if fine_tune == "documents":
            raise ValueError(
                "fine_tune='documents' freezes the vectors labels are read through; the 'no_label_embedding' "
                f"ablation reads no labels. Received: fine_tune='documents' with ablation={ablation!r}"
            )
    word_embedding, label_embedding = word_embeddings(
        vocabulary_size, dim=embedding_dim, vectors=word_vectors, fine_tune=fine_tune
    )
    encoder = CoAttentiveEncoder(
        model_dim=model_dim,
        num_heads=num_heads,
        attention_dim=attention_dim,
        intermediate_dim=intermediate_dim,
        dropout=dropout,
        use_text_to_label_attention=ablation != "no_text_to_label_attention",
        use_label_embedding=reads_labels,
        name="co_attentive_encoder",
    )
    if reads_labels:
        head = AdaptiveLabelDecoder(
            embedding=label_embedding if label_embedding is not None else word_embedding,
            label_ids=label_ids,
            encoder=encoder,
            max_steps=max_steps,
            multi_label=multi_label,
            output_mode=output_mode,
            name="adaptive_label_decoder",
        )
    else:
        head = AdaptiveLabelDecoder(
            encoder=encoder,
            num_labels=count,
            max_steps=max_steps,
            multi_label=multi_label,
            output_mode=output_mode,
            name="adaptive_label_decoder",
        )
    ids = keras.Input(shape=(max_tokens,), dtype="int32", name="token_ids")
    outputs = head(word_embedding(ids))
    return keras.Model(ids, outputs, name=name or ("cnle" if ablation is None else f"cnle_{ablation}"))
