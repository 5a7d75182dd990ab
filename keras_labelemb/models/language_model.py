"""Word-level LSTM language model with a DRILL (or baseline) output layer, for truncated BPTT."""

import keras

from keras_labelemb.argument_checks import check_choice, check_positive_int, check_rate
from keras_labelemb.layers import DrillHead, LinearHead
from keras_labelemb.layers.drill_head import DROPOUT_TYPES

LM_HEADS = ("drill", "tied", "bilinear", "dual", "full")
# The output layer's options, keyword arguments of `drill_lm` -> the `DrillHead` argument each sets. The language
# model fixes the others (the embedding is its own, tied; the variant is `head`; the labels are the vocabulary).
# Those that would read as the encoder's (dropout, activation, ...) are prefixed with `head_`.
HEAD_OPTIONS = {
    "depth": "depth",
    "joint_dim": "joint_dim",
    "head_activation": "activation",
    "residual_to_embedding": "residual_to_embedding",
    "residual_to_previous": "residual_to_previous",
    "head_dropout": "dropout",
    "head_dropout_type": "dropout_type",
    "input_projection": "input_projection",
    "projection_bias": "projection_bias",
    "head_kernel_initializer": "kernel_initializer",
    "head_seed": "seed",
}
# A "drill" head's defaults in a language model (the other variants default to DrillHead's).
DRILL_HEAD_DEFAULTS = {
    "depth": 4,
    "head_dropout": 0.3,
    "head_dropout_type": "variational",
    "head_activation": "sigmoid",
}


def head_arguments(head, head_options):
    """The `DrillHead` arguments of `drill_lm`'s `head` and head options (none for `"full"`), checked.

    >>> head_arguments("drill", {"depth": 2})["depth"], head_arguments("drill", {})["dropout"]
    (2, 0.3)
    """
    if isinstance(head, dict):
        raise ValueError(
            f"`head` is a name, one of {list(LM_HEADS)}; pass the head's options as keyword arguments of drill_lm "
            f"(e.g. head='drill', depth=2, head_dropout=0.3). Received: head={head!r}"
        )
    if head not in LM_HEADS:
        raise ValueError(f"`head` must be one of {list(LM_HEADS)}. Received: head={head!r}")
    allowed = () if head == "full" else tuple(HEAD_OPTIONS)
    unknown = sorted(set(head_options) - set(allowed))
    if unknown:
        takes = f"takes the options {list(allowed)}" if allowed else "takes no options"
        raise ValueError(
            f"A {head!r} language-model head {takes}; {unknown} do not apply. "
            f"Received: {', '.join(f'{key}={head_options[key]!r}' for key in unknown)}"
        )
    if head == "drill":
        head_options = {**DRILL_HEAD_DEFAULTS, **head_options}
    # Checked here to name drill_lm's arguments; DrillHead checks the others under their own names.
    if "head_dropout" in head_options:
        check_rate("head_dropout", head_options["head_dropout"])
    if "head_dropout_type" in head_options:
        check_choice("head_dropout_type", head_options["head_dropout_type"], DROPOUT_TYPES)
    return {HEAD_OPTIONS[key]: value for key, value in head_options.items()}


def drill_lm(
    vocabulary_size,
    batch_size=None,
    bptt=35,
    units=256,
    num_layers=2,
    embedding_dim=None,
    dropout=0.5,
    head="drill",
    stateful=True,
    init_scale=0.1,
    name=None,
    **head_options,
):
    """Embedding -> dropout -> LSTM stack (dropout after each) -> [Dense] -> `DrillHead`.

    The input `Embedding` is shared with the output layer (the DRILL/PW17 weight
    tying): the head's label embeddings are the embedding table, so with
    `head="drill"` the logits of step `t` are `E_k h_t + b` with `E_k` the
    deep residual label network of `depth` layers over `E` (eqs. 9-10). The
    other heads are the paper's baselines on the same encoder (`DrillHead`
    variants): `"tied"` (`E h + b`), `"bilinear"` (`E W h + b`), `"dual"`
    (`sigma(E U + b_u) sigma(V h + b_v) + b`) and `"full"` (a `|V| x d_h`
    softmax layer, `LinearHead`).

    `head` is a name; the output layer's options are keyword arguments
    (`HEAD_OPTIONS`: `depth`, `joint_dim`, `head_activation`,
    `residual_to_embedding`, `residual_to_previous`, `head_dropout`,
    `head_dropout_type`, `input_projection`, `projection_bias`,
    `head_kernel_initializer`, `head_seed`: the `DrillHead` arguments of the
    same names, without the `head_` prefix), none for `"full"`; an option the
    head does not take raises instead of being ignored. A `"drill"` head
    defaults to `depth=4, head_dropout=0.3` (variational), sigmoid: the
    paper's PTB setting but for its 0.6 dropout over a much longer training;
    the other heads default to their `DrillHead` variant's values (no dropout).

    With `stateful=True` (truncated back-propagation through time) the LSTMs
    carry their state from one batch to the next: the batch shape is fixed
    to `(batch_size, bptt)`, batches must come in stream order
    (`keras_labelemb.datasets.bptt_dataset`), evaluation uses the same
    `batch_size`, and `keras_labelemb.training.ResetStates()` among the callbacks zeroes the state at
    the start of every epoch, evaluation and prediction (TensorFlow backend
    only: Keras' JAX and PyTorch trainers do not carry a stateful RNN's
    state, so there it is a `ValueError`). With `stateful=False` every batch
    starts from zero state and any batch shape works, under every backend.

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
        head: `"drill"` (default), `"tied"`, `"bilinear"`, `"dual"` or `"full"`.
        stateful: carry LSTM state across batches (truncated BPTT).
        init_scale: uniform initialisation range of the embedding.
        name: model name; default `"<head>_lm"`.
        **head_options: the output layer's options (above).

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
    head_kwargs = head_arguments(head, head_options)
    if stateful:
        if keras.backend.backend() != "tensorflow":
            # Measured with Keras 3's own stateful LSTM: under JAX the compiled steps neither read nor return
            # the RNN's state variables (Keras creates them untracked), so fit and predict silently start every
            # batch from zero state; under PyTorch, fit fails on the in-place update of the state.
            raise ValueError(
                "stateful=True (truncated BPTT, state carried between batches) works under the TensorFlow "
                f"backend only: Keras' {keras.backend.backend()} trainer does not carry a stateful RNN's state "
                "between compiled steps. Use KERAS_BACKEND=tensorflow, or stateful=False. "
                f"Received: stateful=True under the {keras.backend.backend()} backend"
            )
        check_positive_int("batch_size", batch_size)
        check_positive_int("bptt", bptt)
    embedding_dim = embedding_dim or units

    ids = keras.Input(batch_shape=(batch_size, bptt), dtype="int32", name="token_ids")
    embedding = keras.layers.Embedding(
        vocabulary_size,
        embedding_dim,
        name="word_embedding",
        embeddings_initializer=keras.initializers.RandomUniform(-init_scale, init_scale),
    )
    x = keras.layers.Dropout(dropout, name="embedding_dropout")(embedding(ids))
    for i in range(num_layers):
        x = keras.layers.LSTM(units, return_sequences=True, stateful=stateful, name=f"lstm_{i + 1}")(x)
        x = keras.layers.Dropout(dropout, name=f"lstm_{i + 1}_dropout")(x)
    if embedding_dim != units:
        x = keras.layers.Dense(embedding_dim, name="projection")(x)
    if head == "full":  # the usual softmax layer: one weight vector and bias per word
        logits = LinearHead(vocabulary_size, name="full_head")(x)
    else:
        logits = DrillHead(embedding, variant=head, name=f"{head}_head", **head_kwargs)(x)
    return keras.Model(ids, logits, name=name or f"{head}_lm")
