"""CNLE (Liu et al., Neurocomputing 2022): co-attentive encoder + adaptive label decoder (trained: `training`)."""

import keras

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers import AdaptiveLabelDecoder, CoAttentiveEncoder
from keras_labelemb.models.word_embeddings import EMBEDDING_DEFAULTS, embedding_spec, word_embeddings
from keras_labelemb.renamed import refuse_arguments

ABLATIONS = (None, "no_label_embedding", "no_text_to_label_attention")
# The encoder spec: `CoAttentiveEncoder`'s options, the paper's values by default.
ENCODER_DEFAULTS = {"model_dim": 256, "num_heads": 3, "attention_dim": 150, "intermediate_dim": None, "dropout": 0.0}
# The keys of cnle's `embedding` spec: `document_classifier`'s, without its dropout on word vectors.
EMBEDDING_KEYS = tuple(key for key in EMBEDDING_DEFAULTS if key != "dropout")


def cnle(
    vocabulary_size,
    label_ids=None,
    max_tokens=None,
    num_labels=None,
    multi_label=True,
    max_steps=None,
    ablation=None,
    encoder=None,
    embedding=None,
    output_mode="multi_hot",
    name=None,
    **renamed,
):
    """CNLE: token ids `(B, max_tokens)` -> the decoded label set of each text.

    One `Embedding(mask_zero=True)` reads the text and the label names or
    descriptions (`label_ids`, `(c, Lw)`; their row order is the label
    sequence). The `AdaptiveLabelDecoder` head holds the label set and the
    `CoAttentiveEncoder` (projections to the model width, one BiLSTM shared by
    text and labels, `CoAttention`, final BiLSTMs whose text states start the
    decoder), and decodes greedily for `max_steps` steps. The model returns
    `output_mode` of the decoder: by default the multi-hot decoded sets
    `(B, c)`. Train it through `cnle_training_model(model)` (teacher forcing)
    with `LabelSequenceLoss` and `cnle_optimizer()`; the targets come from
    `keras_labelemb.text.label_sequences`.

    The word embedding is a spec as in `document_classifier` (the same
    code), `embedding={"dim", "initializer", "trainable", "vectors",
    "fine_tune"}`: `"vectors"` start the table and `"fine_tune"` says what
    trains (`"none"`: frozen, as the paper; `"documents"`: labels are read
    through a frozen copy). The encoder's options are one spec, `encoder={"model_dim": ...,
    "num_heads": ..., "attention_dim": ..., "intermediate_dim": ...,
    "dropout": ...}`, each defaulting to the paper's (`ENCODER_DEFAULTS`:
    256, 3, 150, `model_dim`, 0).

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
        encoder: None or a dict of `CoAttentiveEncoder` options (keys of
            `ENCODER_DEFAULTS`; those left out keep the paper's values).
        embedding: None or a dict spec of the word embedding (keys of
            `EMBEDDING_KEYS`), as in `document_classifier`.
        output_mode: the decoder's (`"multi_hot"`, `"sequence"`, `"logits"`).

    Example:

    >>> import numpy as np
    >>> model = cnle(40, np.array([[2, 3], [4, 0], [5, 6]]), max_tokens=7, max_steps=3,
    ...              encoder={"model_dim": 8, "num_heads": 2, "attention_dim": 4}, embedding={"dim": 6})
    >>> tuple(model(np.ones((2, 7), "int32")).shape)
    (2, 3)
    """
    refuse_arguments("cnle", renamed)
    encoder = encoder_spec(encoder)
    embedding = embedding_spec(embedding, vocabulary_size, "cnle", EMBEDDING_KEYS)
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
        if embedding["fine_tune"] == "documents":
            raise ValueError(
                "embedding['fine_tune']='documents' freezes the vectors labels are read through; the "
                f"'no_label_embedding' ablation reads no labels. Received: ablation={ablation!r}"
            )
    word_embedding, label_embedding = word_embeddings(vocabulary_size, embedding)
    encoder = CoAttentiveEncoder(
        **encoder,
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


def encoder_spec(encoder):
    """`encoder` (None or a dict of `CoAttentiveEncoder` options) with every option, the paper's by default.

    >>> encoder_spec({"model_dim": 8})
    {'model_dim': 8, 'num_heads': 3, 'attention_dim': 150, 'intermediate_dim': None, 'dropout': 0.0}
    """
    if encoder is None:
        encoder = {}
    if not isinstance(encoder, dict):
        raise ValueError(
            f"`encoder` must be None or a dict with keys among {list(ENCODER_DEFAULTS)}. Received: encoder={encoder!r}"
        )
    unknown = sorted(set(encoder) - set(ENCODER_DEFAULTS))
    if unknown:
        raise ValueError(
            f"`encoder` takes the keys {list(ENCODER_DEFAULTS)}; unknown: {unknown}. Received: encoder={encoder!r}"
        )
    return {**ENCODER_DEFAULTS, **encoder}
