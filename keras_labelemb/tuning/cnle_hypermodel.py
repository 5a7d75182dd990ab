"""`CNLEHyperModel`: KerasTuner search over CNLE, trained by teacher forcing, selected on decoded label sets."""

import keras_tuner
import numpy as np

from keras_labelemb.argument_checks import check_positive_float, check_positive_int
from keras_labelemb.layers.label_head import validate_label_ids
from keras_labelemb.models.cnle import cnle
from keras_labelemb.training.cnle_training import cnle_optimizer
from keras_labelemb.training.decoded_validation import DecodedValidation
from keras_labelemb.tuning._search_space import (
    _check_bool,
    _check_builder_kwargs,
    _check_jit_compile,
    _choice,
    _choices,
    _float,
    _int_at_least,
    _int_choices,
    _positive_range,
    _rate_range,
    _str_choices,
)

# The `ablation` hyperparameter's values: "none" is the full CNLE (`cnle(ablation=None)`).
ABLATIONS = ("none", "no_label_embedding", "no_text_to_label_attention")
MONITORS = ("micro_f1", "accuracy")
# Arguments of `cnle` that the hypermodel sets itself, with the constructor argument behind each (and
# `encoder`, cnle's former spec of the searched encoder options).
_SEARCHED = {
    "encoder": "model_dims, num_heads, attention_dims, intermediate_dims and dropout",
    "model_dim": "model_dims",
    "num_heads": "num_heads",
    "attention_dim": "attention_dims",
    "intermediate_dim": "intermediate_dims",
    "dropout": "dropout",
    "ablation": "ablations",
    "vocabulary_size": "vocabulary_size",
    "label_ids": "label_ids",
    "max_tokens": "max_tokens",
    "multi_label": "multi_label",
    "max_steps": "max_steps",
    "num_labels": "label_ids",
}
# `cnle`'s `output_mode` stays "multi_hot": `DecodedValidation` scores the decoded sets.
_FIXED = frozenset(("output_mode",))
# The other arguments of `cnle`, fixed for every trial.
_BUILDER_ARGS = frozenset(("embedding_dim", "word_vectors", "fine_tune", "name"))


def _even_positive(value):
    return _int_at_least(2)(value) and value % 2 == 0


class CNLEHyperModel(keras_tuner.HyperModel):
    """A KerasTuner `HyperModel` over CNLE (`keras_labelemb.models.cnle`), trained by teacher forcing.

    `build` returns a `LabelClassifier` fed token ids over `cnle(...)`
    (co-attentive encoder -> adaptive label decoder), compiled with this
    trial's `cnle_optimizer` (Adam 0.9 / 0.98 / 1e-9 on `WarmupSchedule`,
    global gradient norm clipped) and `LabelSequenceLoss`. `fit` (which
    `tuner.search` calls) is the classifier's own `fit`: teacher forcing on
    the label sequences of the multi-hot targets (the label set's order),
    with a `DecodedValidation` callback that decodes the validation texts
    after every epoch. The logs, hence the tuner, see:

    - `val_decoded_micro_f1` and `val_decoded_accuracy`: the decoded sets
      scored against the validation targets (what CNLE is judged on);
    - `val_loss`: the teacher-forcing label-sequence loss on validation.

    Select on the decoded sets with
    `objective=keras_tuner.Objective("val_decoded_micro_f1", "max")`
    (multi-label) or `Objective("val_decoded_accuracy", "max")` (one label
    per text), or on `"val_loss"`. `DecodedValidation` restores each trial's
    best epoch (by `monitor`) and can stop it early (`patience`).

    `tuner.get_best_models()` returns classifiers (`predict` gives the
    decoded multi-hot sets `(N, c)` of token ids, `predict_labels` their
    names) with the weights of the best trial's best epoch by the tuner's
    objective. (Tuner-level `optimizer`, `loss` or `metrics` overrides do
    not apply: `build` compiles the trial's own.)

    The search space:

    | hyperparameter        | values                                          | active when |
    |-----------------------|-------------------------------------------------|-------------|
    | `ablation`            | `ablations`: `ABLATIONS` (`"none"`: full CNLE)  | always      |
    | `model_dim`           | `model_dims`, the encoder width `d` (even)      | always      |
    | `num_heads`           | `num_heads`, attention heads `p`                | `ablation != "no_label_embedding"` |
    | `attention_dim`       | `attention_dims`, the attention width `d_h`     | `ablation != "no_label_embedding"` |
    | `intermediate_dim`    | `intermediate_dims`, the FFN width (only when given) | always |
    | `dropout`             | `dropout` of the encoder, uniform               | always      |
    | `learning_rate_scale` | `learning_rate_scale`, the `WarmupSchedule` scale, log-uniform | always |
    | `warmup_steps`        | `warmup_steps` of the schedule                  | always      |

    The `"no_label_embedding"` ablation has no attention between text and
    labels (`CoAttention` creates no `MultiHead`), so when `ablations` offers
    it beside another, `num_heads` and `attention_dim` are registered under
    `hp.conditional_scope("ablation", <the others>)`; with that ablation only
    they are not registered. The peak learning rate is
    `learning_rate_scale * model_dim^-0.5 * warmup_steps^-0.5`.

    Plural arguments take a list of choices, `dropout` and
    `learning_rate_scale` a `(min, max)` range; a single value fixes any of
    them (`hp.Fixed`). The word embedding's arguments of `cnle`
    (`embedding_dim`, `word_vectors`, `fine_tune`) go to it unchanged.

    `tuner.search(x, y, validation_data=(x_val, y_val), epochs=...,
    batch_size=...)`: `x` token ids `(N, max_tokens)` and `y` multi-hot (or
    one-hot) targets `(N, c)`, as NumPy arrays; `validation_data` is required
    and `validation_split` is not supported.

    Args:
        vocabulary_size: int, word vocabulary size (0 = padding).
        label_ids: `(c, Lw)` int array, token ids of the label names or
            descriptions (their row order is the label sequence).
        max_tokens: int, the text length `m`.
        multi_label: True (default): label sets, decoded for `max_steps`
            steps; False: one label per text (one step).
        max_steps: decoding steps, the end symbol's included; required when
            `multi_label`, None otherwise. A text with more labels keeps the
            first `max_steps - 1` in the target sequence.
        model_dims: even int >= 2 or a list of them. Defaults to `(128, 256)`
            (the paper: 256).
        num_heads: positive int or list of them. Defaults to `(1, 2, 3)` (the paper: 3).
        attention_dims: positive int or list of them. Defaults to
            `(64, 150)` (the paper: 150).
        intermediate_dims: None (default: the FFN width is `d`, not a
            hyperparameter) or a positive int or list of them.
        dropout: float in [0, 1) or a `(min, max)` range of them. Defaults to `(0.0, 0.3)`.
        learning_rate_scale: positive float or a `(min, max)` range sampled
            log-uniformly, the scale of `WarmupSchedule`. Defaults to `(0.5, 2.0)`.
        warmup_steps: positive int or list of them. Defaults to 800 (the paper).
        ablations: one of `ABLATIONS` or a list of them. Defaults to `"none"`.
        labels: the label names (default `label_0`, ...), one per row of `label_ids`.
        global_clipnorm: positive float, the global gradient norm clip. Defaults to 1.0.
        monitor: `"micro_f1"` (default) or `"accuracy"`, the decoded-set score
            `DecodedValidation` keeps the best epoch by.
        patience: stop a trial after this many epochs without a better
            `monitor` score; None (default) never stops early.
        validation_batch_size: batch size of the validation decoding. Default 256.
        jit_compile: `compile`'s `jit_compile` for the teacher-forcing model:
            "auto" (default, Keras' own: XLA on a GPU, off on a CPU-only
            TensorFlow machine), True or False.
        name: name of the hypermodel (KerasTuner).
        tunable: whether the tuner may add the hypermodel's own
            hyperparameters to the search space (KerasTuner). Defaults to True.
        **builder_kwargs: fixed arguments of `cnle`: `embedding_dim`,
            `word_vectors`, `fine_tune`.

    Example:

    >>> import tempfile
    >>> import keras_tuner
    >>> import numpy as np
    >>> label_ids = np.array([[2, 3], [4, 0], [5, 6]])
    >>> hypermodel = CNLEHyperModel(
    ...     30, label_ids, max_tokens=6, max_steps=3, model_dims=(4, 8), num_heads=(1, 2), attention_dims=4,
    ...     ablations=("none", "no_label_embedding"), embedding_dim=6, warmup_steps=10, jit_compile=False)
    >>> hp = keras_tuner.HyperParameters()
    >>> hp.Fixed("ablation", "no_label_embedding")
    'no_label_embedding'
    >>> hp.Fixed("model_dim", 8)
    8
    >>> hypermodel.build(hp).head.encoder.model_dim
    8
    >>> sorted(hp.values)  # no attention in this ablation: num_heads and attention_dim inactive, not recorded
    ['ablation', 'dropout', 'learning_rate_scale', 'model_dim', 'warmup_steps']
    >>> rng = np.random.default_rng(0)
    >>> x = rng.integers(1, 30, (16, 6))
    >>> y = (rng.random((16, 3)) < 0.4).astype("float32")
    >>> tuner = keras_tuner.RandomSearch(
    ...     hypermodel, objective=keras_tuner.Objective("val_decoded_micro_f1", "max"), max_trials=1, seed=0,
    ...     directory=tempfile.mkdtemp(), project_name="cnle")
    >>> tuner.search(x, y, validation_data=(x, y), epochs=1, batch_size=8, verbose=0)
    >>> best = tuner.get_best_models()[0]  # a LabelClassifier: decoded multi-hot label sets
    >>> tuple(best.predict(x).shape), type(best).__name__
    ((16, 3), 'LabelClassifier')

    Reference: Liu et al., "Co-attention network with label embedding for
    text classification", Neurocomputing 2022.
    """

    def __init__(
        self,
        vocabulary_size,
        label_ids,
        max_tokens,
        multi_label=True,
        max_steps=None,
        model_dims=(128, 256),
        num_heads=(1, 2, 3),
        attention_dims=(64, 150),
        intermediate_dims=None,
        dropout=(0.0, 0.3),
        learning_rate_scale=(0.5, 2.0),
        warmup_steps=800,
        ablations="none",
        labels=None,
        global_clipnorm=1.0,
        monitor="micro_f1",
        patience=None,
        validation_batch_size=256,
        jit_compile="auto",
        name=None,
        tunable=True,
        **builder_kwargs,
    ):
        super().__init__(name=name, tunable=tunable)
        self.vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size)
        self.label_ids = validate_label_ids(label_ids, vocabulary_size)
        self.max_tokens = check_positive_int("max_tokens", max_tokens)
        self.multi_label = _check_bool("multi_label", multi_label)
        if self.multi_label:
            self.max_steps = check_positive_int("max_steps", max_steps)
        elif max_steps not in (None, 1):
            raise ValueError(
                f"One label per text (multi_label=False) decodes one step. Received: max_steps={max_steps!r}"
            )
        else:
            self.max_steps = None
        self.model_dims = tuple(int(v) for v in _choices("model_dims", model_dims, _even_positive))
        self.num_heads = _int_choices("num_heads", num_heads, 1)
        self.attention_dims = _int_choices("attention_dims", attention_dims, 1)
        self.intermediate_dims = (
            None if intermediate_dims is None else _int_choices("intermediate_dims", intermediate_dims, 1)
        )
        self.dropout = _rate_range("dropout", dropout)
        self.learning_rate_scale = _positive_range("learning_rate_scale", learning_rate_scale)
        self.warmup_steps = _int_choices("warmup_steps", warmup_steps, 1)
        self.ablations = _str_choices("ablations", ablations, ABLATIONS)
        self.labels = labels if labels is not None else [f"label_{i}" for i in range(len(self.label_ids))]
        if len(self.labels) != len(self.label_ids):
            raise ValueError(
                f"`labels` must name each row of `label_ids`. Received: {len(self.labels)} names for "
                f"{len(self.label_ids)} rows"
            )
        self.global_clipnorm = check_positive_float("global_clipnorm", global_clipnorm)
        if monitor not in MONITORS:
            raise ValueError(f"`monitor` must be one of {list(MONITORS)}. Received: monitor={monitor!r}")
        self.monitor = monitor
        self.patience = check_positive_int("patience", patience, allow_none=True)
        self.validation_batch_size = check_positive_int("validation_batch_size", validation_batch_size)
        self.jit_compile = _check_jit_compile(jit_compile)
        if "output_mode" in builder_kwargs:
            raise ValueError(
                "The hypermodel's models output the decoded multi-hot sets (output_mode='multi_hot'), which the "
                f"validation scores. Received: output_mode={builder_kwargs['output_mode']!r}"
            )
        self.builder_kwargs = _check_builder_kwargs(
            builder_kwargs, _SEARCHED, _BUILDER_ARGS, "keras_labelemb.models.cnle"
        )
        if "no_label_embedding" in self.ablations and self.builder_kwargs.get("fine_tune") == "documents":
            raise ValueError(
                "fine_tune='documents' freezes the vectors labels are read through; the 'no_label_embedding' "
                f"ablation reads no labels. Received: fine_tune='documents' with ablations={ablations!r}"
            )

    @property
    def num_labels(self):
        return len(self.label_ids)

    def declare_hyperparameters(self, hp):
        """Registers the search space in `hp`; returns this trial's `cnle` arguments and optimizer settings."""
        ablation = _choice(hp, "ablation", self.ablations)
        values = {"ablation": None if ablation == "none" else ablation}
        values["model_dim"] = _choice(hp, "model_dim", self.model_dims)
        attending = [a for a in self.ablations if a != "no_label_embedding"]
        if attending:
            attention = {}

            def register():
                attention["num_heads"] = _choice(hp, "num_heads", self.num_heads)
                attention["attention_dim"] = _choice(hp, "attention_dim", self.attention_dims)

            if len(attending) < len(self.ablations):  # the ablation without attention is a choice
                with hp.conditional_scope("ablation", attending):
                    register()
            else:
                register()
            if ablation != "no_label_embedding":
                values.update(attention)
        if self.intermediate_dims is not None:
            values["intermediate_dim"] = _choice(hp, "intermediate_dim", self.intermediate_dims)
        values["dropout"] = _float(hp, "dropout", self.dropout)
        optimizer = {
            "scale": _float(hp, "learning_rate_scale", self.learning_rate_scale, log=True),
            "warmup_steps": _choice(hp, "warmup_steps", self.warmup_steps),
        }
        return values, optimizer

    def build(self, hp):
        """A `LabelClassifier` over `cnle(...)` with the values of `hp`, compiled with the trial's optimizer."""
        from keras_labelemb.tasks import LabelClassifier

        values, optimizer = self.declare_hyperparameters(hp)
        model = cnle(
            self.vocabulary_size,
            self.label_ids,
            max_tokens=self.max_tokens,
            multi_label=self.multi_label,
            max_steps=self.max_steps,
            **values,
            **self.builder_kwargs,
        )
        classifier = LabelClassifier.from_model(model, labels=self.labels, multi_label=self.multi_label)
        classifier(np.zeros((1, self.max_tokens), "int32"))  # built: the tuner loads its checkpoint into it
        classifier.compile(
            optimizer=cnle_optimizer(values["model_dim"], global_clipnorm=self.global_clipnorm, **optimizer),
            jit_compile=self.jit_compile,
        )
        return classifier

    def fit(self, hp, model, x=None, y=None, validation_data=None, callbacks=None, **kwargs):
        """Trains the classifier `model` (`build(hp)`) by its own `fit`; returns its `History`.

        `x`: token ids `(N, max_tokens)`; `y`: multi-hot targets `(N, c)`;
        `validation_data`: `(x_val, y_val)` alike (required). The other
        keyword arguments (`epochs`, `batch_size`, `verbose`, ...) go to `fit`.
        """
        if "validation_split" in kwargs:
            raise ValueError(
                "Pass `validation_data=(x_val, y_val)`: the validation texts are decoded with the inference model. "
                f"Received: validation_split={kwargs['validation_split']!r}"
            )
        if not isinstance(validation_data, (tuple, list)) or len(validation_data) != 2:
            raise ValueError(
                "CNLE is selected on the label sets it decodes for validation texts: pass "
                f"`validation_data=(x_val, y_val)`. Received: validation_data={validation_data!r}"
            )
        if not isinstance(x, np.ndarray):
            raise ValueError(f"`x` must be a NumPy array of token ids (N, max_tokens). Received: x={type(x).__name__}")
        x_val, y_val = np.asarray(validation_data[0]), np.asarray(validation_data[1])
        decoded = DecodedValidation(
            model, x_val, y_val, metric=self.monitor, patience=self.patience, batch_size=self.validation_batch_size
        )
        return model.fit(x, y, validation_data=(x_val, y_val), callbacks=[decoded, *(callbacks or [])], **kwargs)
