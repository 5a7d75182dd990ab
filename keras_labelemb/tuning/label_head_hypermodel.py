"""`LabelHeadHyperModel`: KerasTuner search over the label-aware output heads."""

import keras
import keras_tuner

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers.label_head import validate_label_ids
from keras_labelemb.models.document_classifier import document_classifier, encoder_spec, head_spec
from keras_labelemb.models.head_specs import HEAD_CLASSES, PER_LABEL_HEADS, SENTENCE_HEADS
from keras_labelemb.training.optimizer_build import build_optimizer
from keras_labelemb.tuning._search_space import (
    _check_builder_kwargs,
    _check_jit_compile,
    _check_logit_metrics,
    _choice,
    _choices,
    _copy_metric,
    _float,
    _int_at_least,
    _range,
)

# Every head of the registry that scores labels from their descriptions over the word table of
# `document_classifier` (the linear and wide heads have a weight per label; the sentence heads read a
# `SentenceEncoder`).
HEADS = tuple(name for name in HEAD_CLASSES if name not in PER_LABEL_HEADS + SENTENCE_HEADS)
DEFAULT_HEADS = ("gile", "drill")
# The option each head has searched (`LabelHead.searched_option`); `_SEARCHED` names the argument with its values.
SEARCHED_OPTIONS = {name: cls.searched_option for name, cls in HEAD_CLASSES.items() if cls.searched_option}
# Arguments of `document_classifier` that the hypermodel sets itself, with the
# constructor argument that searches (or fixes) each of them.
_SEARCHED = {
    "head": "heads",
    "joint_dim": "joint_dims",
    "depth": "depths",
    "vocabulary_size": "vocabulary_size",
    "label_ids": "label_ids",
}
# The other arguments of `document_classifier`, fixed for every trial.
_BUILDER_ARGS = frozenset(
    (
        "flat",
        "max_sentences",
        "max_sentence_length",
        "max_tokens",
        "embedding",
        "encoder",
        "wide_features",
        "prior_logit",
        "name",
    )
)


class LabelHeadHyperModel(keras_tuner.HyperModel):
    """A KerasTuner `HyperModel` over the label-aware heads of `document_classifier`.

    Each trial builds `keras_labelemb.models.document_classifier(...)` (embedding
    -> HAN/WAN encoder -> `GileHead` or `DrillHead` over the label descriptions)
    and compiles it with `Adam(learning_rate)` and
    `BinaryCrossentropy(from_logits=True)`. The search space:

    | hyperparameter  | values                               | active when      |
    |-----------------|--------------------------------------|------------------|
    | `head`          | `heads`: `"gile"`, `"drill"`, ...    | always           |
    | `joint_dim`     | `joint_dims` (GILE's `d_j`)          | `head == "gile"` |
    | `depth`         | `depths` (DRILL's `k`)               | `head == "drill"`|
    | `dropout`       | `dropout` (encoder dropout), uniform | always           |
    | `learning_rate` | `learning_rate`, log-uniform         | always           |

    `heads` may name every head of the registry that scores labels from their
    descriptions (`HEADS`: also `"lexical"`, `"interaction"`, `"embedding"`,
    `"hybrid"`; a hybrid's `components` go in `head_options`). A head searches
    the option its class names (`LabelHead.searched_option`: GILE's
    `joint_dim`, DRILL's `depth`); the others have only their fixed options.

    `joint_dim` and `depth` are conditional hyperparameters
    (`hp.conditional_scope("head", ...)`): a trial of one head neither records
    nor varies the other head's parameter, so `trial.hyperparameters.values`
    holds only what shaped the model. A head that is not among `heads` does not
    register its parameter at all.

    Plural arguments (`heads`, `joint_dims`, `depths`) take a list of choices,
    `dropout` and `learning_rate` a `(min, max)` range; every one of them takes a
    single value instead to fix it (`hp.Fixed`: reported, not searched). All other
    keyword arguments are passed to `document_classifier` unchanged and are the
    same in every trial (`flat`, `max_tokens` or `max_sentences` and
    `max_sentence_length`, `embedding` (the word embedding's spec), `encoder`
    (its spec but `dropout`, which is searched), ...). Fixed options of each head go in `head_options`
    (e.g. `{"gile": {"activation": "relu"}, "drill": {"dropout": 0.2}}`),
    checked like `document_classifier`'s head specs.

    The tuner's objective is the tuner's argument: `"val_loss"` (validation
    binary cross-entropy) is the usual one. To select on micro-F1, compile the
    metric in with `metrics=[keras_labelemb.metrics.MicroF1(from_logits=True)]`
    and pass `objective=keras_tuner.Objective("val_micro_f1", direction="max")`
    to the tuner (KerasTuner cannot guess the direction of a metric it does not
    know). That F1 is at a fixed threshold (`MicroF1(threshold=...)`, 0.5 by
    default); for the F1 at the best validation threshold, pass
    `keras_labelemb.training.BestValidationF1(x_val, y_val)` in the
    `callbacks` of `tuner.search`, which logs `val_micro_f1` itself (then leave
    `MicroF1` out of `metrics`, or the callback overwrites it).

    Args:
        vocabulary_size: int, size of the word vocabulary (0 = padding, 1 = unknown).
        label_ids: `(L, Lw)` int array, token ids of the label descriptions.
        heads: a head name of `HEADS` or a list of them. Defaults to
            `("gile", "drill")`.
        joint_dims: positive int or list of them, the joint-space dimension
            `d_j` of the GILE head. Defaults to `(100, 250, 500, 1000)`.
        depths: non-negative int or list of them, the label-network depth `k`
            of the DRILL head. Defaults to `(1, 2, 3, 4)`.
        dropout: float in [0, 1) or a `(min, max)` range of them, the
            attention encoder's dropout on sentence and document vectors
            (its spec's `dropout`). Defaults to `(0.0, 0.5)`. Not searched
            for a `"max_pool"` encoder, whose dropouts are its spec's.
        learning_rate: positive float or a `(min, max)` range sampled
            log-uniformly, Adam's learning rate. Defaults to `(1e-4, 1e-2)`.
        metrics: list of metrics for `compile` (e.g.
            `[keras_labelemb.metrics.MicroF1(from_logits=True)]`), or None.
            Metric objects are copied for every model built. The model outputs
            logits, so a metric with a `from_logits` attribute must have it True.
        jit_compile: `compile`'s `jit_compile`: "auto" (default, Keras' own:
            XLA on a GPU, off on a CPU-only TensorFlow machine, where XLA made
            these models slower; see benchmarks/README.md), True or False.
        head_options: dict from head type to fixed options of that head's spec
            (not `joint_dim` of GILE nor `depth` of DRILL: those are searched).
        name: name of the hypermodel (KerasTuner); the models keep
            `document_classifier`'s default names.
        tunable: whether the tuner may add the hypermodel's own
            hyperparameters to the search space (KerasTuner). Defaults to True.
        **builder_kwargs: fixed arguments of `document_classifier`.

    Example:

    >>> import tempfile
    >>> import keras_tuner
    >>> import numpy as np
    >>> label_ids = np.array([[2, 3], [4, 5], [6, 0]])
    >>> hypermodel = LabelHeadHyperModel(
    ...     20, label_ids, flat=True, max_tokens=6, embedding={"dim": 8}, encoder={"units": 8},
    ...     joint_dims=(4, 8), depths=(1, 2), jit_compile=False)
    >>> hp = keras_tuner.HyperParameters()
    >>> hp.Fixed("head", "drill")
    'drill'
    >>> hp.Fixed("depth", 2)
    2
    >>> hypermodel.build(hp).get_layer("drill_head").depth
    2
    >>> sorted(hp.values)  # joint_dim is GILE's: inactive, so not recorded
    ['depth', 'dropout', 'head', 'learning_rate']
    >>> x = np.random.default_rng(0).integers(0, 20, (16, 6))
    >>> y = np.eye(3, dtype="float32")[np.arange(16) % 3]
    >>> tuner = keras_tuner.RandomSearch(
    ...     hypermodel, objective="val_loss", max_trials=1, seed=0,
    ...     directory=tempfile.mkdtemp(), project_name="heads")
    >>> tuner.search(x, y, validation_data=(x, y), epochs=1, verbose=0)
    >>> best = tuner.get_best_hyperparameters()[0]
    >>> best.get("head") in ("gile", "drill")
    True
    >>> tuple(tuner.get_best_models()[0].predict(x, verbose=0).shape)
    (16, 3)

    References: Pappas & Henderson, "GILE: A Generalized Input-Label Embedding
    for Text Classification", TACL 2019 (the joint-space dimension `d_j`);
    Pappas & Henderson, "Deep Residual Output Layers for Neural Language
    Generation", ICML 2019 (the label-network depth `k`).
    """

    def __init__(
        self,
        vocabulary_size,
        label_ids,
        heads=DEFAULT_HEADS,
        joint_dims=(100, 250, 500, 1000),
        depths=(1, 2, 3, 4),
        dropout=(0.0, 0.5),
        learning_rate=(1e-4, 1e-2),
        metrics=None,
        jit_compile="auto",
        head_options=None,
        name=None,
        tunable=True,
        **builder_kwargs,
    ):
        super().__init__(name=name, tunable=tunable)
        self.vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size)
        self.label_ids = validate_label_ids(label_ids, vocabulary_size)
        self.heads = _choices("heads", heads, lambda v: isinstance(v, str) and v in HEADS)
        self.joint_dims = tuple(int(v) for v in _choices("joint_dims", joint_dims, _int_at_least(1)))
        self.depths = tuple(int(v) for v in _choices("depths", depths, _int_at_least(0)))
        self.dropout = _range("dropout", dropout, 0.0, 1.0, True, "float in [0, 1)")
        self.learning_rate = _range("learning_rate", learning_rate, 0.0, float("inf"), False, "positive float")
        self.jit_compile = _check_jit_compile(jit_compile)
        self.metrics = _check_logit_metrics(metrics)
        self.builder_kwargs = self._fixed_builder_kwargs(builder_kwargs)
        self.encoder = encoder_spec(self.builder_kwargs.pop("encoder", "dense"))
        given = builder_kwargs.get("encoder")
        if self.encoder["type"] != "max_pool" and isinstance(given, dict) and "dropout" in given:
            raise ValueError(
                "The encoder's `dropout` is set by the hypermodel: pass `dropout=` (one value fixes it). "
                f"Received: encoder={given!r}"
            )
        self.head_options = self._check_head_options(head_options)

    def _check_head_options(self, head_options):
        head_options = dict(head_options or {})
        for head, options in head_options.items():
            if head not in self.heads or not isinstance(options, dict):
                raise ValueError(
                    f"`head_options` maps a searched head ({list(self.heads)}) to a dict of options. "
                    f"Received: head_options={head_options!r}"
                )
        for head in self.heads:
            options = head_options.get(head, {})
            searched = SEARCHED_OPTIONS.get(head)
            if "type" in options or (searched is not None and searched in options):
                raise ValueError(
                    f"`head_options[{head!r}]` cannot fix {searched or 'type'!r} (searched: pass "
                    f"`{_SEARCHED.get(searched, 'heads')}=`). Received: head_options={head_options!r}"
                )
            head_spec({"type": head, **options})  # unknown or missing options (a hybrid's components) raise here
        return head_options

    @staticmethod
    def _fixed_builder_kwargs(kwargs):
        """The shared check of the fixed `document_classifier` arguments, `num_labels` refused by name first."""
        if "num_labels" in kwargs:
            raise ValueError(
                "The label heads score labels from `label_ids`; `num_labels` is for the linear head. "
                f"Received: num_labels={kwargs['num_labels']!r}"
            )
        kwargs = _check_builder_kwargs(kwargs, _SEARCHED, _BUILDER_ARGS, "keras_labelemb.models.document_classifier")
        if kwargs.get("flat", False):
            check_positive_int("max_tokens", kwargs.get("max_tokens"))
        else:
            check_positive_int("max_sentences", kwargs.get("max_sentences"))
            check_positive_int("max_sentence_length", kwargs.get("max_sentence_length"))
        return kwargs

    def declare_hyperparameters(self, hp):
        """Registers the search space in `hp` and returns this trial's values as builder arguments."""
        head = _choice(hp, "head", self.heads)
        spec = {"type": head, **self.head_options.get(head, {})}
        for kind in self.heads:
            option = SEARCHED_OPTIONS.get(kind)
            if option is None:
                continue
            with hp.conditional_scope("head", [kind]):
                value = _choice(hp, option, getattr(self, _SEARCHED[option]))
            if head == kind:
                spec[option] = value
        encoder = dict(self.encoder)
        if encoder["type"] != "max_pool":
            encoder["dropout"] = _float(hp, "dropout", self.dropout)
        return {
            "head": spec,
            "encoder": encoder,
            "learning_rate": _float(hp, "learning_rate", self.learning_rate, log=True),
        }

    def build(self, hp):
        """Builds and compiles one `document_classifier` from the values of `hp`."""
        values = self.declare_hyperparameters(hp)
        learning_rate = values.pop("learning_rate")
        model = document_classifier(self.vocabulary_size, self.label_ids, **values, **self.builder_kwargs)
        model.compile(
            optimizer=keras.optimizers.Adam(learning_rate),
            loss=keras.losses.BinaryCrossentropy(from_logits=True),
            metrics=[_copy_metric(m) for m in self.metrics],
            jit_compile=self.jit_compile,
        )
        build_optimizer(model)  # one trace of the first training step, not two
        return model
