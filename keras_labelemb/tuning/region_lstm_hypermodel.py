"""`RegionLSTMHyperModel`: KerasTuner search over oh-2LSTMp (one-hot LSTM region embeddings) as a `LabelClassifier`."""

import keras
import keras_tuner
import numpy as np

from keras_labelemb.argument_checks import check_choice, check_positive_int
from keras_labelemb.layers import LinearHead, RegionLSTM
from keras_labelemb.layers.label_head import prior_bias
from keras_labelemb.layers.region_lstm import DIRECTIONS, GATES
from keras_labelemb.layers.region_pooling import POOLING_MODES
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.training.optimizer_build import build_optimizer
from keras_labelemb.tuning._search_space import (
    _check_bool,
    _check_jit_compile,
    _check_label_names,
    _check_logit_metrics,
    _choice,
    _copy_metric,
    _float,
    _int_choices,
    _positive_range,
    _rate_range,
    _refuse_arguments,
    _str_choices,
    _width,
)

# Singular names of the searched hyperparameters, and the argument that searches (or fixes) each.
_SEARCHED = {"chop_size": "chop_sizes", "chop_overlap": "chop_overlaps", "pooling": "poolings"}
_OTHER_HEAD = "the head is a LinearHead; for another, subclass and override `build_head` (see the class docstring)"
# Arguments the hypermodel does not take, with what to do instead.
_HINTS = {
    "head": _OTHER_HEAD,
    "label_ids": _OTHER_HEAD,
    "label_embedding_dim": _OTHER_HEAD,
    "embedding_dim": "oh-2LSTMp reads one-hot token ids (no word embedding)",
}


class RegionLSTMHyperModel(keras_tuner.HyperModel):
    """A KerasTuner `HyperModel` whose trials are oh-2LSTMp `LabelClassifier`s.

    Each trial's `build(hp)` returns a compiled `keras_labelemb.tasks.LabelClassifier`
    fed token ids directly (`preprocessor=None`): its encoder is
    `keras.Sequential([keras.Input((max_tokens,)), RegionLSTM, Dropout])`
    (one-hot `RegionLSTM` -> region pooling -> dropout on the pooled vector),
    its head a `LinearHead(num_labels)` whose bias starts at `-log(L)`, its
    labels `label_names`. It is compiled with `Adam(learning_rate)` and, for
    one label per document (`multi_label=False`, e.g. 20 Newsgroups: softmax),
    `CategoricalCrossentropy(from_logits=True)` on one-hot targets, or for
    multi-label data (sigmoid) `BinaryCrossentropy(from_logits=True)` on
    multi-hot targets. The search space:

    | hyperparameter  | values                                        | active when        |
    |-----------------|-----------------------------------------------|--------------------|
    | `units`         | `units`, LSTM units per direction             | always             |
    | `chop_size`     | `chop_sizes`, training-time segment length; 0 = no chopping | always |
    | `chop_overlap`  | `chop_overlaps`, context words per segment    | `chop_size > 0`    |
    | `num_regions`   | `num_regions`, the `k` regions of pooling     | always             |
    | `pooling`       | `poolings`: `"max"`, `"average"`              | always             |
    | `gates`         | `gates`: `"no_io"` (no input/output gates, the paper's), `"full"` | always |
    | `dropout`       | `dropout` on the pooled vector, uniform       | always             |
    | `learning_rate` | `learning_rate`, log-uniform                  | always             |

    `chop_overlap` is a conditional hyperparameter: when `chop_sizes` offers
    0 (no chopping), it is registered under
    `hp.conditional_scope("chop_size", <the positive chop sizes>)`, so a trial
    without chopping neither records nor varies it. With `chop_sizes=0` only,
    it is not registered at all.

    Plural arguments take a list of choices, `dropout` and `learning_rate` a
    `(min, max)` range; a single value fixes any of them (`hp.Fixed`:
    reported, not searched). The other arguments (`max_tokens`, `direction`,
    `side_encoders`, ...) are the same in every trial. Another head (e.g. a
    `GileHead` over label descriptions, with its own word embedding): subclass
    the hypermodel and override `build_head(hp, document_width)`; another
    encoder, `build_encoder(hp, values)`.

    Train with `tuner.search(x_ids, y, validation_data=(x_val, y_val), ...)`
    (the task's `fit` feeds a `tf.data.Dataset`, so Keras' `validation_split`
    does not apply). `tuner.get_best_models()` returns `LabelClassifier`s:
    `predict` gives probabilities (softmax, or sigmoid when `multi_label`),
    `predict_labels` label names.

    The tuner's objective: `"val_loss"`, or with the default metric of
    single-label data `keras_tuner.Objective("val_accuracy", "max")`. For
    multi-label data pass e.g.
    `metrics=[keras_labelemb.metrics.MicroF1(from_logits=True)]` and
    `Objective("val_micro_f1", "max")`, or
    `BestValidationF1(x_val, y_val, from_logits=False)` in the callbacks of
    `tuner.search`.

    Args:
        vocabulary_size: int, number of token ids (0 = padding, 1 = unknown).
        num_labels: positive int, number of classes or labels.
        label_names: the `num_labels` label names of the classifiers (their
            `labels`). Defaults to `["label_0", ...]`.
        units: positive int or list of them, LSTM units per direction.
            Defaults to `(100, 150, 300)` (the paper: 500, on a GPU).
        chop_sizes: non-negative int or list of them, the segment length of
            training-time chopping; 0 for none. Defaults to `(25, 50, 100)`.
        chop_overlaps: non-negative int or list of them, extra context words
            before each segment. Defaults to 0 (fixed).
        num_regions: positive int or list of them, regions of the pooling.
            Defaults to `(1, 5, 10)` (the paper, 20 Newsgroups: 10).
        poolings: `"max"` or `"average"`, or a list of them. Defaults to both.
        gates: `"no_io"` or `"full"`, or a list of them. Defaults to both.
        dropout: float in [0, 1) or a `(min, max)` range of them, dropout on
            the pooled vector. Defaults to `(0.0, 0.5)`.
        learning_rate: positive float or a `(min, max)` range sampled
            log-uniformly, Adam's learning rate. Defaults to `(1e-3, 1e-2)`.
        multi_label: False (default): one label per document, softmax
            cross-entropy; True: sigmoid binary cross-entropy per label.
        max_tokens: positive int, `T` tokens per document, or None (default)
            for any length.
        direction: `"bidirectional"` (default, oh-2LSTMp), `"forward"` or
            `"backward"` (oh-LSTMp).
        side_encoders: None, or layers called on the token ids whose outputs
            the LSTM also reads (e.g. tv-embeddings, `RegionLSTM`'s).
        train_side_encoders: whether the side encoders train. Default False.
        metrics: list of metrics for `compile`, or None: then
            `[CategoricalAccuracy(name="accuracy")]` for single-label data and
            none for multi-label data. Metric objects are copied for every
            model built; a metric with a `from_logits` attribute must have it
            True (the model outputs logits).
        jit_compile: `compile`'s `jit_compile`: "auto" (default, Keras' own:
            XLA on a GPU, off on a CPU-only TensorFlow machine), True or False.
            (XLA trained the chopped RegionLSTM faster on CPU, but compiles
            every trial's model first: see benchmarks/README.md.)
        name: name of the hypermodel (KerasTuner).
        tunable: whether the tuner may add the hypermodel's own
            hyperparameters to the search space (KerasTuner). Defaults to True.

    Example:

    >>> import tempfile
    >>> import keras_tuner
    >>> import numpy as np
    >>> hypermodel = RegionLSTMHyperModel(
    ...     30, 3, label_names=["atheism", "graphics", "hockey"], max_tokens=12, units=(4, 8), chop_sizes=(0, 4),
    ...     chop_overlaps=(0, 2), num_regions=(1, 2), jit_compile=False)
    >>> hp = keras_tuner.HyperParameters()
    >>> hp.Fixed("chop_size", 0)
    0
    >>> hp.Fixed("units", 8)
    8
    >>> classifier = hypermodel.build(hp)
    >>> region = classifier.encoder.get_layer("region_lstm")
    >>> type(classifier).__name__, region.units, region.chop_size
    ('LabelClassifier', 8, None)
    >>> sorted(hp.values)  # no chopping: chop_overlap is inactive, so not recorded
    ['chop_size', 'dropout', 'gates', 'learning_rate', 'num_regions', 'pooling', 'units']
    >>> x = np.random.default_rng(0).integers(0, 30, (12, 12))
    >>> y = np.eye(3, dtype="float32")[np.arange(12) % 3]
    >>> tuner = keras_tuner.RandomSearch(
    ...     hypermodel, objective=keras_tuner.Objective("val_accuracy", "max"), max_trials=1, seed=0,
    ...     directory=tempfile.mkdtemp(), project_name="region_lstm")
    >>> tuner.search(x, y, validation_data=(x, y), epochs=1, verbose=0)
    >>> best = tuner.get_best_models()[0]
    >>> tuple(best.predict(x).shape)  # softmax over the three classes
    (12, 3)
    >>> best.predict_labels(x[:1])[0] in ("atheism", "graphics", "hockey")
    True

    Reference: Johnson & Zhang, "Supervised and semi-supervised text
    categorization using LSTM for region embeddings", ICML 2016.
    """

    def __init__(
        self,
        vocabulary_size,
        num_labels,
        label_names=None,
        units=(100, 150, 300),
        chop_sizes=(25, 50, 100),
        chop_overlaps=0,
        num_regions=(1, 5, 10),
        poolings=POOLING_MODES,
        gates=GATES,
        dropout=(0.0, 0.5),
        learning_rate=(1e-3, 1e-2),
        multi_label=False,
        max_tokens=None,
        direction="bidirectional",
        side_encoders=None,
        train_side_encoders=False,
        metrics=None,
        jit_compile="auto",
        name=None,
        tunable=True,
        **unknown,
    ):
        _refuse_arguments(type(self).__name__, unknown, _SEARCHED, _HINTS)
        super().__init__(name=name, tunable=tunable)
        self.vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size)
        if self.vocabulary_size < 2:
            raise ValueError(
                f"`vocabulary_size` must be at least 2 (id 0 is padding). Received: vocabulary_size={vocabulary_size!r}"
            )
        self.num_labels = check_positive_int("num_labels", num_labels)
        self.label_names = _check_label_names(label_names, self.num_labels)
        self.max_tokens = check_positive_int("max_tokens", max_tokens, allow_none=True)
        self.direction = check_choice("direction", direction, DIRECTIONS)
        if side_encoders is not None and not isinstance(side_encoders, (list, tuple)):
            raise ValueError(
                f"`side_encoders` must be None or a list of layers. Received: side_encoders={side_encoders!r:.200}"
            )
        self.side_encoders = side_encoders
        self.train_side_encoders = _check_bool("train_side_encoders", train_side_encoders)
        self.units = _int_choices("units", units, 1)
        self.chop_sizes = _int_choices("chop_sizes", chop_sizes, 0)
        self.chop_overlaps = _int_choices("chop_overlaps", chop_overlaps, 0)
        if self.chop_sizes == (0,) and self.chop_overlaps != (0,):
            raise ValueError(
                "`chop_overlaps` needs chopping: `chop_sizes` offers only 0 (no chopping). "
                f"Received: chop_overlaps={chop_overlaps!r}"
            )
        self.num_regions = _int_choices("num_regions", num_regions, 1)
        self.poolings = _str_choices("poolings", poolings, POOLING_MODES)
        self.gates = _str_choices("gates", gates, GATES)
        self.dropout = _rate_range("dropout", dropout)
        self.learning_rate = _positive_range("learning_rate", learning_rate)
        self.multi_label = _check_bool("multi_label", multi_label)
        if metrics is None and not self.multi_label:
            metrics = [keras.metrics.CategoricalAccuracy(name="accuracy")]
        self.metrics = _check_logit_metrics(metrics)
        self.jit_compile = _check_jit_compile(jit_compile)

    def declare_hyperparameters(self, hp):
        """Registers the search space in `hp` and returns this trial's values (`chop_size` None: no chopping)."""
        values = {"units": _choice(hp, "units", self.units)}
        chop_size = _choice(hp, "chop_size", self.chop_sizes)
        values["chop_size"] = chop_size or None
        values["chop_overlap"] = 0
        chopped = [size for size in self.chop_sizes if size > 0]
        if chopped:
            if len(chopped) < len(self.chop_sizes):  # no chopping is a choice: the overlap depends on it
                with hp.conditional_scope("chop_size", chopped):
                    overlap = _choice(hp, "chop_overlap", self.chop_overlaps)
            else:
                overlap = _choice(hp, "chop_overlap", self.chop_overlaps)
            if chop_size:
                values["chop_overlap"] = overlap
        values["num_regions"] = _choice(hp, "num_regions", self.num_regions)
        values["pooling"] = _choice(hp, "pooling", self.poolings)
        values["gates"] = _choice(hp, "gates", self.gates)
        values["dropout"] = _float(hp, "dropout", self.dropout)
        values["learning_rate"] = _float(hp, "learning_rate", self.learning_rate, log=True)
        return values

    def output_bias(self):
        """The initializer of the output bias: `-log(L)` (a softmax ignores it; sigmoid: about one label each)."""
        return prior_bias(self.num_labels)

    def build_encoder(self, hp, values):
        """The trial's encoder: token ids -> `RegionLSTM` (pooled) -> `Dropout` (override for another).

        `values` are the trial's, as `declare_hyperparameters` returns them (`chop_size` None: no chopping).
        """
        region = RegionLSTM(
            values["units"],
            self.vocabulary_size,
            gates=values["gates"],
            direction=self.direction,
            pooling=values["pooling"],
            num_regions=values["num_regions"],
            chop_size=values["chop_size"],
            chop_overlap=values["chop_overlap"],
            side_encoders=self.side_encoders,
            train_side_encoders=self.train_side_encoders,
            name="region_lstm",
        )
        return keras.Sequential(
            [
                keras.Input((self.max_tokens,), dtype="int32"),
                region,
                keras.layers.Dropout(values["dropout"], name="dropout"),
            ],
            name="region_encoder",
        )

    def build_head(self, hp, document_width):
        """The trial's head over `(B, document_width)` pooled vectors: `LinearHead(num_labels)` (override it)."""
        return LinearHead(self.num_labels, bias_initializer=self.output_bias())

    def build(self, hp):
        """Builds and compiles one oh-2LSTMp `LabelClassifier` (token ids in) from the values of `hp`."""
        values = self.declare_hyperparameters(hp)
        encoder = self.build_encoder(hp, values)
        head = self.build_head(hp, _width(encoder, (self.max_tokens,)))
        model = LabelClassifier(
            encoder,
            head,
            preprocessor=None,
            labels=self.label_names,
            multi_label=self.multi_label,
            name="oh_2lstmp" if self.direction == "bidirectional" else "oh_lstmp",
        )
        if self.multi_label:
            loss = keras.losses.BinaryCrossentropy(from_logits=True)
        else:
            loss = keras.losses.CategoricalCrossentropy(from_logits=True)
        model.compile(
            optimizer=keras.optimizers.Adam(values["learning_rate"]),
            loss=loss,
            metrics=[_copy_metric(m) for m in self.metrics],
            jit_compile=self.jit_compile,
        )
        model(np.zeros((1, self.max_tokens or 1), "int32"))  # builds every layer (a task builds on its first call)
        build_optimizer(model)  # one trace of the first training step, not two
        return model
