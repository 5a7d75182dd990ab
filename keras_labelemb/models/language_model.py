"""Word-level LSTM language model with a DRILL (or baseline) output layer, for truncated BPTT."""

import keras

from keras_labelemb.layers import DrillHead, LinearHead
from keras_labelemb.argument_checks import check_choice, check_positive_int, check_rate

LM_HEADS = ("drill", "tied", "bilinear", "dual", "full")


def drill_lm(
    vocabulary_size,
    batch_size=None,
    bptt=35,
    units=256,
    num_layers=2,
    embedding_dim=None,
    dropout=0.5,
    head="drill",
    depth=4,
    head_dropout=0.3,
    head_dropout_type="variational",
    head_activation="sigmoid",
    residual_to_previous=False,
    head_kwargs=None,
    stateful=True,
    init_scale=0.1,
    name=None,
):
    """Embedding -> dropout -> LSTM stack (dropout after each) -> [Dense] -> `DrillHead`.

    The input `Embedding` is shared with the output layer (the DRILL/PW17 weight
    tying): the head's label embeddings are the embedding table, so with
    `head="drill"` the logits of step `t` are `E_k h_t + b` with `E_k` the
    deep residual label network of `depth` layers over `E` (eqs. 9-10). The
    other heads are the paper's baselines on the same encoder (`DrillHead`
    variants): `"tied"` (`E h + b`), `"bilinear"` (`E W h + b`), `"dual"`
    (`sigma(E U + b_u) sigma(V h + b_v) + b`) and `"full"` (a `|V| x d_h`
    softmax layer). `head_dropout`, `head_dropout_type`, `head_activation`
    and `residual_to_previous` configure the DRILL head only (baselines use
    their plain form); `head_kwargs` passes any other `DrillHead` argument.

    With `stateful=True` (truncated back-propagation through time) the LSTMs
    carry their state from one batch to the next: the batch shape is fixed
    to `(batch_size, bptt)`, batches must come in stream order
    (`keras_labelemb.datasets.bptt_dataset`), evaluation uses the same
    `batch_size`, and `keras_labelemb.training.ResetStates()` among the callbacks zeroes the state at
    the start of every epoch, evaluation and prediction. With
    `stateful=False` every batch starts from zero state and any batch shape works.

    Outputs are logits `(B, T, |V|)`; train with
    `SparseCategoricalCrossentropy(from_logits=True)` and report `Perplexity()`.

    Args:
        vocabulary_size: `|V|`.
        batch_size: rows per batch; required when `stateful`.
        bptt: time steps per batch (`None` for any length when not stateful).
        units: LSTM units per layer.
        num_layers: LSTM layers.
        embedding_dim: word vector size `d`; default `units`. When it differs
            from `units`, a linear `Dense(d)` maps the LSTM output to `d`.
        dropout: rate on the word vectors and after every LSTM layer.
        head: one of `"drill"`, `"tied"`, `"bilinear"`, `"dual"`, `"full"`.
        depth: `k` of the DRILL label network.
        head_dropout: dropout between the DRILL layers (the paper: 0.6).
        head_dropout_type: `"variational"` or `"standard"`.
        head_activation: DRILL's `sigma` (the paper: sigmoid on PTB).
        residual_to_previous: DRILL's residual to the previous layer (eq. 10).
        head_kwargs: extra `DrillHead` arguments.
        stateful: carry LSTM state across batches (truncated BPTT).
        init_scale: uniform initialisation range of the embedding.
        name: model name.

    Returns:
        An uncompiled functional `keras.Model` from token ids `(B, T)` to logits.

    Example:

    >>> import numpy as np, keras
    >>> from keras_labelemb.metrics import Perplexity
    >>> from keras_labelemb.training import ResetStates
    >>> model = drill_lm(50, batch_size=4, bptt=6, units=8, num_layers=1, depth=2)
    >>> model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    ...               metrics=[Perplexity()])
    >>> ids = np.random.randint(0, 50, (3, 4, 7))   # three consecutive (4, 7) windows
    >>> history = model.fit(ids[:, :, :-1].reshape(-1, 6), ids[:, :, 1:].reshape(-1, 6), batch_size=4,
    ...                     shuffle=False, callbacks=[ResetStates()], verbose=0)
    >>> tuple(model.output.shape)
    (4, 6, 50)

    Reference: Pappas & Henderson, "Deep Residual Output Layers for Neural
    Language Generation", ICML 2019; the encoder follows Zaremba et al. (2014).
    """
    check_positive_int("vocabulary_size", vocabulary_size)
    check_positive_int("units", units)
    check_positive_int("num_layers", num_layers)
    check_positive_int("embedding_dim", embedding_dim, allow_none=True)
    check_rate("dropout", dropout)
    head = check_choice("head", head, LM_HEADS)
    if stateful:
        check_positive_int("batch_size", batch_size)
        check_positive_int("bptt", bptt)
    embedding_dim = embedding_dim or units

    ids = keras.Input(batch_shape=(batch_size, bptt), dtype="int32", name="token_ids")
    embedding = keras.layers.Embedding(
        vocabulary_size, embedding_dim, name="word_embedding",
        embeddings_initializer=keras.initializers.RandomUniform(-init_scale, init_scale),
    )
    x = keras.layers.Dropout(dropout, name="embedding_dropout")(embedding(ids))
    for i in range(num_layers):
        x = keras.layers.LSTM(units, return_sequences=True, stateful=stateful, name=f"lstm_{i + 1}")(x)
        x = keras.layers.Dropout(dropout, name=f"lstm_{i + 1}_dropout")(x)
    if embedding_dim != units:
        x = keras.layers.Dense(embedding_dim, name="projection")(x)
    options = {}
    if head == "drill":
        options = dict(depth=depth, dropout=head_dropout, dropout_type=head_dropout_type,
                       activation=head_activation, residual_to_previous=residual_to_previous)
    options.update(head_kwargs or {})
    if head == "full":  # the usual softmax layer: one weight vector and bias per word
        if options:
            raise ValueError(f"head='full' takes no head options. Received: {sorted(options)}")
        logits = LinearHead(vocabulary_size, name="full_head")(x)
    else:
        logits = DrillHead(embedding, variant=head, name=f"{head}_head", **options)(x)
    return keras.Model(ids, logits, name=name or f"{head}_lm")
