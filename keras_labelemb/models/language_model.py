"""Word-level LSTM language model with a DRILL (or baseline) output layer, for truncated BPTT."""

import keras

from keras_labelemb.argument_checks import check_positive_int, check_rate
from keras_labelemb.layers import DrillHead, LinearHead

LM_HEADS = ("drill", "tied", "bilinear", "dual", "full")
# DrillHead arguments a language-model head spec may set: its spec options but those the language model fixes
# (the embedding is the model's, tied; the variant is the head type; labels are the vocabulary, read as words).
LM_HEAD_OPTIONS = tuple(o for o in DrillHead.spec_options if o not in ("variant", "bias_mode", "label_encoder"))
DRILL_LM_DEFAULTS = {"depth": 4, "dropout": 0.3, "dropout_type": "variational", "activation": "sigmoid"}


def lm_head_spec(head):
    """A language-model head as `{"type": ..., **options}`, checked; DRILL gets its LM defaults.

    >>> lm_head_spec("tied")
    {'type': 'tied'}
    >>> lm_head_spec({"type": "drill", "depth": 2})["depth"], lm_head_spec("drill")["dropout"]
    (2, 0.3)
    """
    spec = {"type": head} if isinstance(head, str) else dict(head) if isinstance(head, dict) else None
    if spec is None or spec.get("type") not in LM_HEADS:
        raise ValueError(
            f"`head` must be one of {list(LM_HEADS)} or a dict spec with such a 'type'. Received: head={head!r}"
        )
    allowed = () if spec["type"] == "full" else LM_HEAD_OPTIONS
    unknown = sorted(set(spec) - {"type"} - set(allowed))
    if unknown:
        raise ValueError(
            f"A {spec['type']!r} language-model head takes {list(allowed)}; {unknown} do not apply. "
            f"Received: head={head!r}"
        )
    if spec["type"] == "drill":
        spec = {**DRILL_LM_DEFAULTS, **spec}
    return spec


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

    `head` is a name or a spec `{"type": name, **options}` whose options are
    `DrillHead` arguments (`depth`, `dropout`, `dropout_type`, `activation`,
    `residual_to_previous`, ...; none for `"full"`), so an option a head does
    not take raises instead of being ignored. A `"drill"` head defaults to
    `depth=4, dropout=0.3` (variational), sigmoid: the paper's PTB setting
    but for its 0.6 dropout over a much longer training.

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
        head: `"drill"` (default), `"tied"`, `"bilinear"`, `"dual"`, `"full"`,
            or a spec `{"type": ..., **DrillHead options}` (above).
        stateful: carry LSTM state across batches (truncated BPTT).
        init_scale: uniform initialisation range of the embedding.
        name: model name.

    Returns:
        An uncompiled functional `keras.Model` from token ids `(B, T)` to logits.

    Example:

    >>> import numpy as np, keras
    >>> from keras_labelemb.metrics import Perplexity
    >>> from keras_labelemb.training import ResetStates
    >>> model = drill_lm(50, batch_size=4, bptt=6, units=8, num_layers=1, head={"type": "drill", "depth": 2})
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
    spec = lm_head_spec(head)
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
    kind = spec.pop("type")
    if kind == "full":  # the usual softmax layer: one weight vector and bias per word
        logits = LinearHead(vocabulary_size, name="full_head")(x)
    else:
        logits = DrillHead(embedding, variant=kind, name=f"{kind}_head", **spec)(x)
    return keras.Model(ids, logits, name=name or f"{kind}_lm")
