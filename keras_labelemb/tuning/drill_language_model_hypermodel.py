"""`DrillLanguageModelHyperModel`: KerasTuner search over the DRILL output layer of a word-level language model."""

import keras
import keras_tuner
import numpy as np

from keras_labelemb.argument_checks import check_positive_float, check_positive_int
from keras_labelemb.layers.drill_head import DROPOUT_TYPES
from keras_labelemb.metrics import Perplexity
from keras_labelemb.models.language_model import HEAD_OPTIONS, drill_lm
from keras_labelemb.training.optimizer_build import build_optimizer
from keras_labelemb.training.reset_states import ResetStates
from keras_labelemb.tuning._search_space import (
    _check_bool,
    _check_builder_kwargs,
    _check_jit_compile,
    _choice,
    _float,
    _int_choices,
    _positive_range,
    _rate_range,
    _str_choices,
)

# How the label network's layers add their residual (DrillHead's two switches):
# "embedding": E added to every layer (eq. 10, DRILL's default); "previous": each layer's input added
# (residuals between layers); "both": both (benchmarks/language_model.py's "+ residuals between layers").
RESIDUALS = {
    "embedding": {"residual_to_embedding": True, "residual_to_previous": False},
    "previous": {"residual_to_embedding": False, "residual_to_previous": True},
    "both": {"residual_to_embedding": True, "residual_to_previous": True},
}
OPTIMIZERS = ("sgd", "adam")
_DEFAULT_LEARNING_RATE = {"sgd": (5.0, 40.0), "adam": (5e-4, 5e-3)}
# Arguments of `drill_lm` that the hypermodel sets itself, with the constructor argument behind each.
_SEARCHED = {
    "head": "depths",
    "vocabulary_size": "vocabulary_size",
    "batch_size": "batch_size",
    "stateful": "stateful",
}
# The head options of `drill_lm` (`HEAD_OPTIONS`) that the search sets.
_HEAD_SEARCHED = {
    "depth": "depths",
    "head_dropout": "head_dropout",
    "head_dropout_type": "dropout_types",
    "residual_to_embedding": "residuals",
    "residual_to_previous": "residuals",
}
# The other arguments of `drill_lm`, fixed for every trial.
_BUILDER_ARGS = frozenset(("bptt", "units", "num_layers", "embedding_dim", "dropout", "init_scale", "name"))
# The other head options of `drill_lm`, fixed for every trial.
_HEAD_FIXED = frozenset(HEAD_OPTIONS) - set(_HEAD_SEARCHED)


class DrillLanguageModelHyperModel(keras_tuner.HyperModel):
    """A KerasTuner `HyperModel` over the DRILL output layer of `keras_labelemb.models.drill_lm`.

    Each trial builds `drill_lm(...)` (tied embedding -> LSTM stack ->
    `DrillHead`) with a `"drill"` head and compiles it with
    `SparseCategoricalCrossentropy(from_logits=True)` and the `Perplexity()`
    metric (logged as `perplexity` / `val_perplexity`). The optimizer is SGD
    (default; the recipe of `benchmarks/language_model.py`) or Adam, with
    the global gradient norm clipped at `clipnorm`, and a constant learning
    rate or, with `decay_steps`, a cosine decay to 10% of it over that many
    steps. The search space:

    | hyperparameter  | values                                                  | active when |
    |-----------------|---------------------------------------------------------|-------------|
    | `depth`         | `depths`, the label network's depth `k` (0: weight tying) | always    |
    | `head_dropout`  | `head_dropout`, dropout between the label layers, uniform | `depth > 0` |
    | `dropout_type`  | `dropout_types`: `"variational"`, `"standard"`          | `depth > 0` |
    | `residual`      | `residuals`: `"embedding"`, `"previous"`, `"both"` (below) | `depth > 0` |
    | `learning_rate` | `learning_rate`, log-uniform                            | always      |

    The residual forms (`RESIDUALS`, DrillHead's two switches): `"embedding"`
    adds `E` to every layer's output (eq. 10, DRILL's default);
    `"previous"` adds each layer's input (residuals between layers); `"both"`
    adds both (the "+ residuals between layers" row of
    `benchmarks/language_model.py`).

    `head_dropout`, `dropout_type` and `residual` shape the label network, so
    when `depths` offers 0 (no label network: exactly weight tying) they are
    registered under `hp.conditional_scope("depth", <the positive depths>)`:
    a depth-0 trial neither records nor varies them. With `depths=0` only,
    they are not registered at all.

    Plural arguments take a list of choices, `head_dropout` and
    `learning_rate` a `(min, max)` range; a single value fixes any of them
    (`hp.Fixed`). The encoder's arguments (`bptt`, `units`, `num_layers`,
    `embedding_dim`, `dropout`, `init_scale`) go to `drill_lm` unchanged, and
    so do its other head options (`head_activation`, `joint_dim`,
    `input_projection`, `projection_bias`, `head_kernel_initializer`,
    `head_seed`), fixed for every trial.

    Stateful or not. With `stateful=False` (default) every batch starts from
    zero LSTM state: any batch shape works, rows may be shuffled, and
    `tuner.search(x, y, validation_data=..., batch_size=...)` works as with
    any model (rows are `bptt`-token windows, e.g. `bptt_arrays(...)`
    reshaped to `(-1, bptt)`). With `stateful=True` (truncated BPTT, as the
    benchmark trains) the model's batch shape is fixed to
    `(batch_size, bptt)` and `fit` (which `tuner.search` calls) takes care of
    the rest: it passes `batch_size` and `shuffle=False`, validates with the
    same batch size and adds `keras_labelemb.training.ResetStates()` to the
    callbacks (state zeroed at every epoch and evaluation). The rows must
    then be in stream order (`bptt_arrays(split, batch_size, bptt)` reshaped
    to `(-1, bptt)`) and, given as arrays, fill whole batches; an argument
    against that (another `batch_size`, `shuffle=True`, a row count that is
    not a multiple of `batch_size`, `validation_split`) raises a `ValueError`.
    `tuner.get_best_models()` then returns stateful models of that batch
    shape; `keras_labelemb.export.stateless_language_model(model)` copies one
    for any batch shape.

    The tuner's objective: `"val_loss"` (mean validation cross-entropy) or,
    the same ranking, `keras_tuner.Objective("val_perplexity", "min")`.

    Args:
        vocabulary_size: `|V|`, the words (tied embedding and output labels).
        depths: non-negative int or list of them, the DRILL depth `k`.
            Defaults to `(1, 2, 3, 4)`.
        head_dropout: float in [0, 1) or a `(min, max)` range, dropout between
            the label network's layers. Defaults to `(0.0, 0.5)`.
        dropout_types: `"variational"` or `"standard"`, or a list of them.
            Defaults to both.
        residuals: `"embedding"`, `"previous"` or `"both"`, or a list of them
            (see the table). Defaults to all three.
        learning_rate: positive float or a `(min, max)` range sampled
            log-uniformly. Default (None): `(5.0, 40.0)` for SGD,
            `(5e-4, 5e-3)` for Adam.
        optimizer: `"sgd"` (default) or `"adam"`.
        clipnorm: positive float, the global gradient norm is clipped at it,
            or None for no clipping. Defaults to 0.25.
        decay_steps: None (default): a constant learning rate; a positive
            int: cosine decay to 10% of it over that many steps (set it to
            epochs x steps per epoch).
        stateful: carry the LSTM state across batches (above). Default False.
        batch_size: rows per batch, required when `stateful` (and only then).
        jit_compile: `compile`'s `jit_compile`: "auto" (default, Keras' own:
            XLA on a GPU, off on a CPU-only TensorFlow machine), True or False.
        name: name of the hypermodel (KerasTuner).
        tunable: whether the tuner may add the hypermodel's own
            hyperparameters to the search space (KerasTuner). Defaults to True.
        **builder_kwargs: fixed arguments of `drill_lm`, its encoder's and
            the head options the search does not set.

    Example:

    >>> import tempfile
    >>> import keras_tuner
    >>> import numpy as np
    >>> hypermodel = DrillLanguageModelHyperModel(
    ...     40, depths=(0, 2), bptt=6, units=8, num_layers=1, jit_compile=False)
    >>> hp = keras_tuner.HyperParameters()
    >>> hp.Fixed("depth", 2)
    2
    >>> hp.Fixed("residual", "previous")
    'previous'
    >>> head = hypermodel.build(hp).get_layer("drill_head")
    >>> head.depth, head.residual_to_embedding, head.residual_to_previous
    (2, False, True)
    >>> tied = keras_tuner.HyperParameters()
    >>> tied.Fixed("depth", 0)
    0
    >>> hypermodel.build(tied).get_layer("drill_head").depth
    0
    >>> sorted(tied.values)  # depth 0: no label network, so its parameters are inactive, not recorded
    ['depth', 'learning_rate']
    >>> ids = np.random.default_rng(0).integers(0, 40, (16, 7))
    >>> x, y = ids[:, :-1], ids[:, 1:]
    >>> tuner = keras_tuner.RandomSearch(
    ...     hypermodel, objective=keras_tuner.Objective("val_perplexity", "min"), max_trials=1, seed=0,
    ...     directory=tempfile.mkdtemp(), project_name="drill_lm")
    >>> tuner.search(x, y, validation_data=(x, y), epochs=1, batch_size=8, verbose=0)
    >>> tuple(tuner.get_best_models()[0].predict(x, verbose=0).shape)
    (16, 6, 40)

    Reference: Pappas & Henderson, "Deep Residual Output Layers for Neural
    Language Generation", ICML 2019.
    """

    def __init__(
        self,
        vocabulary_size,
        depths=(1, 2, 3, 4),
        head_dropout=(0.0, 0.5),
        dropout_types=DROPOUT_TYPES,
        residuals=tuple(RESIDUALS),
        learning_rate=None,
        optimizer="sgd",
        clipnorm=0.25,
        decay_steps=None,
        stateful=False,
        batch_size=None,
        jit_compile="auto",
        name=None,
        tunable=True,
        **builder_kwargs,
    ):
        super().__init__(name=name, tunable=tunable)
        self.vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size)
        self.depths = _int_choices("depths", depths, 0)
        self.head_dropout = _rate_range("head_dropout", head_dropout)
        self.dropout_types = _str_choices("dropout_types", dropout_types, DROPOUT_TYPES)
        self.residuals = _str_choices("residuals", residuals, RESIDUALS)
        if optimizer not in OPTIMIZERS:
            raise ValueError(f"`optimizer` must be one of {list(OPTIMIZERS)}. Received: optimizer={optimizer!r}")
        self.optimizer = optimizer
        if learning_rate is None:
            learning_rate = _DEFAULT_LEARNING_RATE[optimizer]
        self.learning_rate = _positive_range("learning_rate", learning_rate)
        self.clipnorm = check_positive_float("clipnorm", clipnorm, allow_none=True)
        self.decay_steps = check_positive_int("decay_steps", decay_steps, allow_none=True)
        self.stateful = _check_bool("stateful", stateful)
        if self.stateful:
            self.batch_size = check_positive_int("batch_size", batch_size)
        elif batch_size is not None:
            raise ValueError(
                "`batch_size` fixes the batch shape of a stateful model; with stateful=False pass the batch size "
                f"to `tuner.search`. Received: batch_size={batch_size!r}"
            )
        else:
            self.batch_size = None
        self.jit_compile = _check_jit_compile(jit_compile)
        if "head_options" in builder_kwargs:
            raise ValueError(
                "Fixed head options are keyword arguments of the hypermodel, as of drill_lm (e.g. "
                f"head_activation='tanh'), among {sorted(_HEAD_FIXED)}. "
                f"Received: head_options={builder_kwargs['head_options']!r}"
            )
        self.builder_kwargs = _check_builder_kwargs(
            builder_kwargs,
            {**_SEARCHED, **_HEAD_SEARCHED},
            _BUILDER_ARGS | _HEAD_FIXED,
            "keras_labelemb.models.drill_lm",
        )
        if self.stateful:
            check_positive_int("bptt", self.builder_kwargs.get("bptt", 35))

    def declare_hyperparameters(self, hp):
        """Registers the search space in `hp`; returns this trial's head options of `drill_lm` and learning rate."""
        depth = _choice(hp, "depth", self.depths)
        label_network = {}
        deep = [d for d in self.depths if d > 0]
        if deep:

            def register():
                label_network["head_dropout"] = _float(hp, "head_dropout", self.head_dropout)
                label_network["head_dropout_type"] = _choice(hp, "dropout_type", self.dropout_types)
                residual = _choice(hp, "residual", self.residuals)  # None while inactive
                label_network.update(RESIDUALS.get(residual, {}))

            if len(deep) < len(self.depths):  # depth 0 is a choice: the label network's parameters depend on it
                with hp.conditional_scope("depth", deep):
                    register()
            else:
                register()
        head_options = {"depth": depth, **(label_network if depth > 0 else {"head_dropout": 0.0})}
        learning_rate = _float(hp, "learning_rate", self.learning_rate, log=True)
        return head_options, learning_rate

    def build(self, hp):
        """Builds and compiles one `drill_lm` from the values of `hp`."""
        head_options, learning_rate = self.declare_hyperparameters(hp)
        model = drill_lm(
            self.vocabulary_size,
            batch_size=self.batch_size,
            stateful=self.stateful,
            head="drill",
            **head_options,
            **self.builder_kwargs,
        )
        if self.decay_steps:
            learning_rate = keras.optimizers.schedules.CosineDecay(learning_rate, self.decay_steps, alpha=0.1)
        optimizer = keras.optimizers.SGD if self.optimizer == "sgd" else keras.optimizers.Adam
        model.compile(
            optimizer=optimizer(learning_rate, global_clipnorm=self.clipnorm),
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=[Perplexity()],
            jit_compile=self.jit_compile,
        )
        build_optimizer(model)  # one trace of the first training step, not two
        return model

    def fit(self, hp, model, *args, **kwargs):
        """`model.fit(*args, **kwargs)`; a stateful model gets its batch size, stream order and `ResetStates`."""
        if not self.stateful:
            return model.fit(*args, **kwargs)
        for key in ("batch_size", "validation_batch_size"):
            if kwargs.get(key) not in (None, self.batch_size):
                raise ValueError(
                    f"A stateful model reads batches of batch_size={self.batch_size} (its fixed batch shape). "
                    f"Received: {key}={kwargs[key]!r}"
                )
        if kwargs.get("shuffle", False):
            raise ValueError(
                "A stateful model reads the rows in stream order: shuffling would break the carried state. "
                f"Received: shuffle={kwargs['shuffle']!r}"
            )
        if kwargs.get("validation_split"):
            raise ValueError(
                "A stateful model validates on whole batches of a stream: pass `validation_data` (e.g. "
                f"bptt_arrays('val', {self.batch_size}, bptt) reshaped). "
                f"Received: validation_split={kwargs['validation_split']!r}"
            )
        x = args[0] if args else kwargs.get("x")
        validation = kwargs.get("validation_data")
        self._check_whole_batches("x", x)
        if isinstance(validation, (tuple, list)) and validation:
            self._check_whole_batches("validation_data", validation[0])
        callbacks = list(kwargs.get("callbacks") or [])
        if not any(isinstance(c, ResetStates) for c in callbacks):
            callbacks.insert(0, ResetStates())
        kwargs.update(
            batch_size=self.batch_size,
            validation_batch_size=self.batch_size,
            shuffle=False,
            callbacks=callbacks,
        )
        return model.fit(*args, **kwargs)

    def _check_whole_batches(self, name, x):
        if isinstance(x, np.ndarray) and len(x) % self.batch_size:
            raise ValueError(
                f"A stateful model reads whole batches of {self.batch_size} rows: `{name}` has {len(x)} rows, "
                f"not a multiple. Received: {name} with shape {x.shape}"
            )
