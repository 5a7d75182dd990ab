"""CNLE (Liu et al., Neurocomputing 2022): co-attentive encoder + adaptive label decoder, and how to train it."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers import AdaptiveLabelDecoder, CoAttentiveEncoder
from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
from keras_labelemb.models.document_classifier import _check_word_vectors, _pretrained_embedding
from keras_labelemb.models.label_head_access import split_at_head
from keras_labelemb.training.warmup_schedule import WarmupSchedule

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
    embeddings_initializer=None,
    train_embeddings=None,
    word_vectors=None,
    fine_tune_word_vectors=None,
    output_mode="multi_hot",
    name=None,
):
    """CNLE: token ids `(B, max_tokens)` -> the decoded label set of each text.

    One `Embedding(mask_zero=True)` reads the text and the label names or
    descriptions (`label_ids`, `(c, Lw)`; their row order is the label
    sequence). The `AdaptiveLabelDecoder` head holds the label set and the
    `CoAttentiveEncoder` (projections to `model_dim`, one BiLSTM shared by
    text and labels, `CoAttention`, final BiLSTMs whose text states start the
    decoder), and decodes greedily for `max_steps` steps. The model returns
    `output_mode` of the decoder: by default the multi-hot decoded sets
    `(B, c)`. Train it through `cnle_training_model(model)` (teacher forcing)
    with `LabelSequenceLoss` and `cnle_optimizer()`; the targets come from
    `keras_labelemb.text.label_sequences`.

    Word vectors as in `document_classifier` (the same code): `word_vectors`
    start the table and `fine_tune_word_vectors` says what trains (`"none"`:
    frozen, as the paper; `"documents"`: labels are read through a frozen
    copy). The paper's defaults: `model_dim=256`, `attention_dim=150`,
    `num_heads=3`.

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
        model_dim, num_heads, attention_dim, intermediate_dim, dropout: of the encoder.
        embedding_dim, embeddings_initializer, train_embeddings, word_vectors,
            fine_tune_word_vectors: the word embedding, as in `document_classifier`.
        output_mode: the decoder's (`"multi_hot"`, `"sequence"`, `"logits"`).

    Example:

    >>> import numpy as np
    >>> model = cnle(40, np.array([[2, 3], [4, 0], [5, 6]]), max_tokens=7, max_steps=3, model_dim=8,
    ...              num_heads=2, attention_dim=4, embedding_dim=6)
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
        if fine_tune_word_vectors == "documents":
            raise ValueError(
                "fine_tune_word_vectors='documents' freezes the vectors labels are read through; the "
                f"'no_label_embedding' ablation reads no labels. Received: ablation={ablation!r}"
            )
    vectors, fine_tune = _check_word_vectors(
        word_vectors, fine_tune_word_vectors, vocabulary_size, embedding_dim, embeddings_initializer, train_embeddings
    )
    label_embedding = None
    if vectors is not None:
        embedding = _pretrained_embedding(vectors, fine_tune != "none", "word_embedding")
        if fine_tune == "documents":
            label_embedding = _pretrained_embedding(vectors, False, "label_word_embedding")
    else:
        embedding = keras.layers.Embedding(
            vocabulary_size,
            embedding_dim or 100,
            mask_zero=True,
            embeddings_initializer=embeddings_initializer or "uniform",
            trainable=True if train_embeddings is None else bool(train_embeddings),
            name="word_embedding",
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
            embedding=label_embedding if label_embedding is not None else embedding,
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
    outputs = head(embedding(ids))
    return keras.Model(ids, outputs, name=name or ("cnle" if ablation is None else f"cnle_{ablation}"))


@keras.saving.register_keras_serializable(package="keras_labelemb")
class TeacherForcing(keras.layers.Layer):
    """Runs a model's `AdaptiveLabelDecoder` with teacher forcing without adding a call of it to any graph.

    `find_label_head` / `split_at_head` need the head called once, in the
    inference model; this layer calls the head's `call` directly, so the
    training model shares every weight and leaves the inference model's
    graph as it was.
    """

    def __init__(self, head, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True  # the text mask is taken (and passed on explicitly), not propagated
        if not isinstance(head, AdaptiveLabelDecoder):
            raise ValueError(f"`head` must be an AdaptiveLabelDecoder. Received: head={head!r}")
        self.head = head

    def call(self, inputs, label_sequence, mask=None, training=None):
        return self.head.call(inputs, label_sequence=label_sequence, mask=mask, training=training)

    def compute_mask(self, inputs, label_sequence=None, mask=None):
        return None

    def compute_output_spec(self, inputs, label_sequence, mask=None, training=None):
        return keras.KerasTensor(
            (inputs.shape[0], self.head.max_steps, self.head.num_classes), dtype=self.head.compute_dtype
        )

    def get_config(self):
        config = super().get_config()
        config["head"] = keras.saving.serialize_keras_object(self.head)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["head"] = keras.saving.deserialize_keras_object(config["head"])
        return cls(**config)


def cnle_training_model(model):
    """The teacher-forcing model of a `cnle` model: `{"token_ids", "label_sequence"}` -> step logits.

    Shares every weight with `model`; fit it on `x={"token_ids": ids,
    "label_sequence": seqs}`, `y=seqs` (`label_sequences(targets, max_steps)`)
    with `LabelSequenceLoss`, then predict with `model`.
    """
    encoder, head = split_at_head(model)
    if not isinstance(head, AdaptiveLabelDecoder):
        raise ValueError(f"`model` must end in an AdaptiveLabelDecoder. Received: head={head.name!r}")
    ids = keras.Input(shape=tuple(model.inputs[0].shape[1:]), dtype="int32", name="token_ids")
    sequence = keras.Input(shape=(head.max_steps,), dtype="int32", name="label_sequence")
    logits = TeacherForcing(head, name="teacher_forcing")(encoder(ids), sequence, mask=ops.not_equal(ids, 0))
    return keras.Model({"token_ids": ids, "label_sequence": sequence}, logits, name=f"{model.name}_teacher_forcing")


def cnle_optimizer(model_dim=256, warmup_steps=800, global_clipnorm=1.0, scale=1.0):
    """CNLE's optimizer: Adam (beta_1 0.9, beta_2 0.98, epsilon 1e-9) on `WarmupSchedule`, gradient norm clipped.

    The paper "re-scales the gradient's norm within [0, 1)": the global norm,
    clipped at `global_clipnorm`.
    """
    return keras.optimizers.Adam(
        learning_rate=WarmupSchedule(model_dim, warmup_steps, scale),
        beta_1=0.9,
        beta_2=0.98,
        epsilon=1e-9,
        global_clipnorm=global_clipnorm,
    )


def compile_cnle_training_model(training_model, optimizer=None, **compile_kwargs):
    """Compiles a `cnle_training_model` with `LabelSequenceLoss` (eq. 14) and `cnle_optimizer()` by default."""
    training_model.compile(optimizer=optimizer or cnle_optimizer(), loss=LabelSequenceLoss(), **compile_kwargs)
    return training_model
