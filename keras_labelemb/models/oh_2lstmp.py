"""oh-2LSTMp: one-hot bidirectional LSTM with pooling, then a linear (or GILE) top layer (J&Z 2016)."""

import keras

from keras_labelemb.layers import LabelHead, LinearHead, RegionLSTM
from keras_labelemb.models.document_classifier import apply_head


def oh_2lstmp(
    vocabulary_size,
    num_labels=None,
    max_tokens=None,
    units=500,
    gates="no_io",
    direction="bidirectional",
    pooling="max",
    num_regions=10,
    chop_size=50,
    chop_overlap=0,
    dropout=0.5,
    side_encoders=None,
    train_side_encoders=False,
    head=None,
    name=None,
):
    """Token ids -> `RegionLSTM` (one-hot, no word embedding) -> dropout -> top layer -> logits.

    The paper's model (Johnson & Zhang 2016, Figure 4 and section 2.3):
    bidirectional one-hot LSTM without input/output gates, each direction's
    per-word outputs concatenated, max pooling over k regions of the whole
    document (k=10 on 20 Newsgroups), dropout on the pooled vector, a linear
    top layer. Training-time chopping (`chop_size`, default 50) as in the
    paper; tests read whole documents. With `side_encoders` (e.g.
    `[TvEmbedding.encoder]` from `train_tv_embeddings`) the LSTM also takes the
    tv-embeddings as frozen additional input (section 3).

    Defaults follow the paper (500 units per direction); use fewer units on a
    CPU. The vocabulary (the paper: the 30K most frequent words, lower-cased)
    is the text pipeline's business: pass `vocabulary_size`, e.g.
    `TextVectorizer(max_tokens=...).adapt(texts, max_size=30002)`.

    Args:
        vocabulary_size: number of token ids (0 = padding, 1 = unknown).
        num_labels: number of classes (the linear head).
        max_tokens: `T`, tokens per document; None for any length.
        units: LSTM units per direction. Default 500.
        gates: `"no_io"` (default) or `"full"` (oh-LSTMp with i/f/o gates).
        direction: `"bidirectional"` (default, oh-2LSTMp), `"forward"` or `"backward"`.
        pooling, num_regions: see `RegionLSTM`. Defaults `"max"`, 10.
        chop_size, chop_overlap: training-time chopping. Defaults 50, 0.
        dropout: rate on the pooled vector. Default 0.5.
        side_encoders, train_side_encoders: see `RegionLSTM`.
        head: None (default: the paper's `LinearHead(num_labels)`), or any
            `LabelHead` layer over the pooled vector, e.g. `GileHead(
            keras.layers.Embedding(V, 100, mask_zero=True), label_ids)`, which
            reads the label descriptions through its own word table (the model
            has no word embedding to share).
        name: model name. Default `"oh_2lstmp"` (or `"oh_lstmp"` for one direction).

    Returns:
        A functional `keras.Model` from int32 token ids `(B, T)` to logits
        `(B, num_labels)`; compile it with e.g.
        `CategoricalCrossentropy(from_logits=True)`, or the paper's square loss.

    Example:

    >>> import numpy as np
    >>> model = oh_2lstmp(50, num_labels=4, max_tokens=12, units=8, chop_size=4)
    >>> ids = np.random.default_rng(0).integers(0, 50, size=(3, 12))
    >>> tuple(model(ids).shape)
    (3, 4)
    >>> model.get_layer("region_lstm").output.shape  # 10 regions x 2 directions x 8 units
    (None, 160)

    Reference: Johnson & Zhang, "Supervised and semi-supervised text
    categorization using LSTM for region embeddings", ICML 2016.
    """
    if head is None:
        if num_labels is None:
            raise ValueError("`num_labels` is required with the linear head (head=None). Received: num_labels=None")
        head = LinearHead(num_labels, name="linear_head")
    elif not isinstance(head, LabelHead):
        raise ValueError(f"`head` must be None (linear) or a LabelHead layer. Received: head={head!r:.200}")
    ids = keras.Input(shape=(max_tokens,), dtype="int32", name="token_ids")
    region = RegionLSTM(
        units,
        vocabulary_size,
        gates=gates,
        direction=direction,
        pooling=pooling,
        num_regions=num_regions,
        chop_size=chop_size,
        chop_overlap=chop_overlap,
        side_encoders=side_encoders,
        train_side_encoders=train_side_encoders,
        name="region_lstm",
    )(ids)
    pooled = keras.layers.Dropout(dropout, name="dropout")(region)
    logits = apply_head(head, pooled, ids)
    default_name = "oh_2lstmp" if direction == "bidirectional" else "oh_lstmp"
    return keras.Model(ids, logits, name=name or default_name)
