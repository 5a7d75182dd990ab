"""`LabelHeadHyperModel`: KerasTuner search over the label-aware heads of a `LabelClassifier`."""

import keras
import keras_tuner
import numpy as np

from keras_labelemb.argument_checks import check_bool, check_choice, check_positive_int
from keras_labelemb.layers import HierarchicalAttention  # the package's layers: every head is registered
from keras_labelemb.layers.hierarchical_attention import ENCODERS
from keras_labelemb.layers.label_head import head_class, prior_bias, registered_heads, validate_label_ids
from keras_labelemb.models.word_embeddings import word_embeddings
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.training.optimizer_build import build_optimizer
from keras_labelemb.tuning._search_space import (
    _check_jit_compile,
    _check_label_names,
    _check_logit_metrics,
    _choice,
    _choices,
    _copy_metric,
    _float,
    _int_at_least,
    _range,
    _refuse_arguments,
    _width,
)


def _over_a_word_table(cls):
    """A head that scores labels from their descriptions read through the documents' word table."""
    return cls.reads_descriptions and not cls.reads_sentence_vectors and not cls.reads_features


# Every registered head that scores labels from their descriptions over the word table (not the linear and wide
# heads, with a weight per label, nor the sentence heads, which read a `SentenceEncoder`).
HEADS = tuple(name for name, cls in registered_heads().items() if _over_a_word_table(cls))
DEFAULT_HEADS = ("gile", "drill")
# Heads made of other heads: `build_head` cannot guess their parts, a subclass's `build_head` builds them.
COMPOSED_HEADS = ("hybrid",)
# The option each head has searched (`LabelHead.searched_option`), and the argument that holds its choices.
SEARCHED_OPTIONS = {name: head_class(name).searched_option for name in HEADS if head_class(name).searched_option}
CHOICE_ARGUMENTS = {"joint_dim": "joint_dims", "depth": "depths"}
FINE_TUNE = ("all", "none", "documents")


class LabelHeadHyperModel(keras_tuner.HyperModel):
    """A KerasTuner `HyperModel` whose trials are `LabelClassifier`s with a GILE, DRILL or other label head.

    Each trial's `build(hp)` returns a compiled `keras_labelemb.tasks.LabelClassifier`
    fed token ids directly (`preprocessor=None`): its encoder is
    `keras.Sequential([keras.Input(ids), word embedding, HierarchicalAttention])`
    (HAN, or WAN when `flat`), its head the trial's over the same word
    embedding and the label descriptions `label_ids`, its labels
    `label_names`. It is compiled with `Adam(learning_rate)` and
    `BinaryCrossentropy(from_logits=True)`; the output bias starts at
    `-log(L)` (about one label per document). The search space:

    | hyperparameter  | values                               | active when      |
    |-----------------|--------------------------------------|------------------|
    | `head`          | `heads`: `"gile"`, `"drill"`, ...    | always           |
    | `joint_dim`     | `joint_dims` (GILE's `d_j`)          | `head == "gile"` |
    | `depth`         | `depths` (DRILL's `k`)               | `head == "drill"`|
    | `dropout`       | `dropout` (encoder dropout), uniform | always           |
    | `learning_rate` | `learning_rate`, log-uniform         | always           |

    `heads` may name every head of the registry that scores labels from their
    descriptions over the word table (`HEADS`: also `"lexical"`,
    `"interaction"`, `"embedding"`, `"cosine"`, and `"hybrid"`, which a subclass
    builds, below). A head searches the option its class names
    (`LabelHead.searched_option`: GILE's `joint_dim`, DRILL's `depth`); the
    others keep their defaults. Heads that read the document's tokens get the
    document dict from the task. DRILL is built as a classifier: `tanh`,
    projecting the document vector into the word-vector space when their
    widths differ (`input_projection`).

    `joint_dim` and `depth` are conditional hyperparameters
    (`hp.conditional_scope("head", ...)`): a trial of one head neither records
    nor varies the other head's parameter, so `trial.hyperparameters.values`
    holds only what shaped the model. A head that is not among `heads` does not
    register its parameter at all.

    Plural arguments (`heads`, `joint_dims`, `depths`) take a list of choices,
    `dropout` and `learning_rate` a `(min, max)` range; every one of them takes a
    single value instead to fix it (`hp.Fixed`: reported, not searched). The
    other arguments are the same in every trial.

    Other fixed options of a head (GILE's `activation`, DRILL's `dropout`, a
    hybrid's components): subclass the hypermodel and override
    `build_head(hp, name, embedding, label_ids, document_width)`, which
    returns the head `name` of the trial (read its searched option from `hp`,
    e.g. `hp["joint_dim"]`, and start its bias at `output_bias()`); call
    `super().build_head(...)` for the heads you leave as they are. Another
    encoder: override `build_encoder(hp, embedding)` likewise (it returns a
    layer from token ids to `(B, d)`; `hp["dropout"]` is the trial's dropout).

    Train with `tuner.search(x_ids, y, validation_data=(x_val, y_val), ...)`:
    the task's `fit` feeds a `tf.data.Dataset`, so Keras' `validation_split`
    does not apply. `tuner.get_best_models()` returns `LabelClassifier`s:
    `predict` gives probabilities (sigmoid), `predict_labels` label names
    (tune their thresholds first, `best.tune_thresholds(x_val, y_val)`: a
    model rebuilt by the tuner has its weights, not the thresholds its
    trial's `fit` chose).

    The tuner's objective is the tuner's argument: `"val_loss"` (validation
    binary cross-entropy) is the usual one. To select on micro-F1, compile the
    metric in with `metrics=[keras_labelemb.metrics.MicroF1(from_logits=True)]`
    and pass `objective=keras_tuner.Objective("val_micro_f1", direction="max")`
    to the tuner (KerasTuner cannot guess the direction of a metric it does not
    know). That F1 is at a fixed threshold (`MicroF1(threshold=...)`, 0.5 by
    default); for the F1 at the best validation threshold, pass
    `keras_labelemb.training.BestValidationF1(x_val, y_val, from_logits=False)`
    (the task's `predict` gives probabilities) in the `callbacks` of
    `tuner.search`, which logs `val_micro_f1` itself (then leave `MicroF1` out
    of `metrics`, or the callback overwrites it).

    Args:
        vocabulary_size: int, size of the word vocabulary (0 = padding, 1 = unknown).
        label_ids: `(L, Lw)` int array, token ids of the label descriptions.
        label_names: the `L` label names of the classifiers (their `labels`).
            Defaults to `["label_0", ...]`.
        heads: a head name of `HEADS` or a list of them. Defaults to
            `("gile", "drill")`.
        joint_dims: positive int or list of them, the joint-space dimension
            `d_j` of the GILE head. Defaults to `(100, 250, 500, 1000)`.
        depths: non-negative int or list of them, the label-network depth `k`
            of the DRILL head. Defaults to `(1, 2, 3, 4)`.
        dropout: float in [0, 1) or a `(min, max)` range of them, the
            attention encoder's dropout on sentence and document vectors.
            Defaults to `(0.0, 0.5)`.
        learning_rate: positive float or a `(min, max)` range sampled
            log-uniformly, Adam's learning rate. Defaults to `(1e-4, 1e-2)`.
        flat: False (default): a HAN over `(max_sentences,
            max_sentence_length)` token ids; True: a WAN over `(max_tokens,)`.
        max_tokens: positive int, tokens per document when `flat`.
        max_sentences: positive int, sentences per document unless `flat`.
        max_sentence_length: positive int, tokens per sentence unless `flat`.
        embedding_dim: positive int, the word vectors' width `d`; default
            100, or the width of `word_vectors`.
        word_vectors: None, or `(vocabulary_size, d)` pretrained word vectors
            (row 0 padding) that start the word embedding.
        fine_tune: what trains the word vectors (`word_embeddings`): `"all"`
            (default), `"none"`, or `"documents"` (labels read a frozen copy of
            `word_vectors`).
        encoder: the word and sentence encoder of `HierarchicalAttention`:
            `"dense"` (default), `"gru"`, `"bigru"`, `"lstm"` or `"bilstm"`.
        units: positive int, units of each encoder (per direction for
            bi-RNNs). Defaults to 100.
        attention_units: positive int or None (default: the encoder's width),
            the attention projections' size.
        metrics: list of metrics for `compile` (e.g.
            `[keras_labelemb.metrics.MicroF1(from_logits=True)]`), or None.
            Metric objects are copied for every model built. The model outputs
            logits, so a metric with a `from_logits` attribute must have it True.
        jit_compile: `compile`'s `jit_compile`: "auto" (default, Keras' own:
            XLA on a GPU, off on a CPU-only TensorFlow machine, where XLA made
            these models slower; see benchmarks/README.md), True or False.
        name: name of the hypermodel (KerasTuner).
        tunable: whether the tuner may add the hypermodel's own
            hyperparameters to the search space (KerasTuner). Defaults to True.

    Example:

    >>> import tempfile
    >>> import keras_tuner
    >>> import numpy as np
    >>> label_ids = np.array([[2, 3], [4, 5], [6, 0]])
    >>> hypermodel = LabelHeadHyperModel(
    ...     20, label_ids, label_names=["grain", "trade", "money"], flat=True, max_tokens=6,
    ...     embedding_dim=8, units=8, joint_dims=(4, 8), depths=(1, 2), jit_compile=False)
    >>> hp = keras_tuner.HyperParameters()
    >>> hp.Fixed("head", "drill")
    'drill'
    >>> hp.Fixed("depth", 2)
    2
    >>> classifier = hypermodel.build(hp)
    >>> type(classifier).__name__, classifier.head.depth
    ('LabelClassifier', 2)
    >>> sorted(hp.values)  # joint_dim is GILE's: inactive, so not recorded
    ['depth', 'dropout', 'head', 'learning_rate']
    >>> x = np.random.default_rng(0).integers(0, 20, (16, 6))
    >>> y = np.eye(3, dtype="float32")[np.arange(16) % 3]
    >>> tuner = keras_tuner.RandomSearch(
    ...     hypermodel, objective="val_loss", max_trials=1, seed=0,
    ...     directory=tempfile.mkdtemp(), project_name="heads")
    >>> tuner.search(x, y, validation_data=(x, y), epochs=1, verbose=0)
    >>> tuner.get_best_hyperparameters()[0].get("head") in ("gile", "drill")
    True
    >>> best = tuner.get_best_models()[0]
    >>> tuple(best.predict(x).shape)  # probabilities of the three labels
    (16, 3)
    >>> set(sum(best.predict_labels(x), [])) <= {"grain", "trade", "money"}
    True

    A fixed option of one head, by a subclass (here GILE with a ReLU):

    >>> from keras_labelemb.layers import GileHead
    >>> class ReluGile(LabelHeadHyperModel):
    ...     def build_head(self, hp, name, embedding, label_ids, document_width):
    ...         if name != "gile":
    ...             return super().build_head(hp, name, embedding, label_ids, document_width)
    ...         return GileHead(embedding, label_ids, joint_dim=hp["joint_dim"], activation="relu",
    ...                         bias_initializer=self.output_bias())
    >>> relu = ReluGile(20, label_ids, heads="gile", joint_dims=4, flat=True, max_tokens=6, embedding_dim=8,
    ...                 units=8, jit_compile=False)
    >>> relu.build(keras_tuner.HyperParameters()).head.activation.__name__
    'relu'

    References: Pappas & Henderson, "GILE: A Generalized Input-Label Embedding
    for Text Classification", TACL 2019 (the joint-space dimension `d_j`);
    Pappas & Henderson, "Deep Residual Output Layers for Neural Language
    Generation", ICML 2019 (the label-network depth `k`).
    """

    def __init__(
        self,
        vocabulary_size,
        label_ids,
        label_names=None,
        heads=DEFAULT_HEADS,
        joint_dims=(100, 250, 500, 1000),
        depths=(1, 2, 3, 4),
        dropout=(0.0, 0.5),
        learning_rate=(1e-4, 1e-2),
        flat=False,
        max_tokens=None,
        max_sentences=None,
        max_sentence_length=None,
        embedding_dim=None,
        word_vectors=None,
        fine_tune="all",
        encoder="dense",
        units=100,
        attention_units=None,
        metrics=None,
        jit_compile="auto",
        name=None,
        tunable=True,
        **unknown,
    ):
        _refuse_arguments(type(self).__name__, unknown, _SEARCHED, _HINTS, default=_FIXED_HEAD_OPTION)
        super().__init__(name=name, tunable=tunable)
        self.vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size)
        self.label_ids = validate_label_ids(label_ids, vocabulary_size)
        self.label_names = _check_label_names(label_names, len(self.label_ids))
        self.heads = _choices("heads", heads, lambda v: isinstance(v, str) and v in HEADS)
        overridden = type(self).build_head is not LabelHeadHyperModel.build_head
        composed = [head for head in self.heads if head in COMPOSED_HEADS]
        if composed and not overridden:
            raise ValueError(
                f"A {composed[0]!r} head is made of other heads: subclass LabelHeadHyperModel and override "
                f"`build_head` to build it (see the class docstring). Received: heads={heads!r}"
            )
        self.joint_dims = tuple(int(v) for v in _choices("joint_dims", joint_dims, _int_at_least(1)))
        self.depths = tuple(int(v) for v in _choices("depths", depths, _int_at_least(0)))
        self.dropout = _range("dropout", dropout, 0.0, 1.0, True, "float in [0, 1)")
        self.learning_rate = _range("learning_rate", learning_rate, 0.0, float("inf"), False, "positive float")
        self.flat = check_bool("flat", flat)
        self.token_shape = self._check_layout(max_tokens, max_sentences, max_sentence_length)
        self.embedding_dim = check_positive_int("embedding_dim", embedding_dim, allow_none=True)
        self.fine_tune = check_choice("fine_tune", fine_tune, FINE_TUNE)
        self.word_vectors = self._check_word_vectors(word_vectors)
        self.encoder = check_choice("encoder", encoder, ENCODERS)
        self.units = check_positive_int("units", units)
        self.attention_units = check_positive_int("attention_units", attention_units, allow_none=True)
        self.jit_compile = _check_jit_compile(jit_compile)
        self.metrics = _check_logit_metrics(metrics)

    def _check_layout(self, max_tokens, max_sentences, max_sentence_length):
        """The token-id input shape: `(max_tokens,)` when flat, else `(max_sentences, max_sentence_length)`."""
        if self.flat:
            used, other = {"max_tokens": max_tokens}, {"max_sentences": max_sentences}
            other["max_sentence_length"] = max_sentence_length
        else:
            used, other = {"max_sentences": max_sentences, "max_sentence_length": max_sentence_length}, {}
            other["max_tokens"] = max_tokens
        for key, value in other.items():
            if value is not None:
                raise ValueError(
                    f"flat={self.flat} reads documents sized by {' and '.join(f'`{k}`' for k in used)}. "
                    f"Received: {key}={value!r}"
                )
        return tuple(check_positive_int(key, value) for key, value in used.items())

    def _check_word_vectors(self, word_vectors):
        if word_vectors is None:
            if self.fine_tune == "documents":
                raise ValueError(
                    "fine_tune='documents' reads labels through a frozen copy of pretrained vectors: pass "
                    "`word_vectors`. Received: word_vectors=None"
                )
            return None
        vectors = np.asarray(word_vectors)
        if (
            vectors.ndim != 2
            or vectors.shape[0] != self.vocabulary_size
            or not np.issubdtype(vectors.dtype, np.number)
            or not np.isfinite(vectors).all()
        ):
            raise ValueError(
                f"`word_vectors` must be a finite numeric (vocabulary_size={self.vocabulary_size}, d) matrix. "
                f"Received: word_vectors with shape {vectors.shape} and dtype {vectors.dtype}"
            )
        if self.embedding_dim is not None and self.embedding_dim != vectors.shape[1]:
            raise ValueError(
                f"`embedding_dim` must match the width of `word_vectors` ({vectors.shape[1]}) or be left unset. "
                f"Received: embedding_dim={self.embedding_dim!r}"
            )
        return vectors.astype("float32")

    def declare_hyperparameters(self, hp):
        """Registers the search space in `hp` and returns this trial's values: head, dropout, learning rate."""
        head = _choice(hp, "head", self.heads)
        for kind in self.heads:
            option = SEARCHED_OPTIONS.get(kind)
            if option is not None and option in CHOICE_ARGUMENTS:
                with hp.conditional_scope("head", [kind]):
                    _choice(hp, option, getattr(self, CHOICE_ARGUMENTS[option]))
        return {
            "head": head,
            "dropout": _float(hp, "dropout", self.dropout),
            "learning_rate": _float(hp, "learning_rate", self.learning_rate, log=True),
        }

    def output_bias(self):
        """The initializer of the output bias: `-log(L)`, the log-odds of about one label per document."""
        count = len(self.label_ids)
        return prior_bias(count)

    def build_encoder(self, hp, embedding):
        """The trial's document encoder: token ids -> `embedding` -> `HierarchicalAttention` (override for another)."""
        attention = HierarchicalAttention(
            word_encoder=self.encoder,
            word_units=self.units,
            sentence_encoder=self.encoder,
            sentence_units=self.units,
            attention_units=self.attention_units,
            flat=self.flat,
            dropout=hp["dropout"],
        )
        return keras.Sequential(
            [keras.Input(self.token_shape, dtype="int32"), embedding, attention], name="document_encoder"
        )

    def build_head(self, hp, name, embedding, label_ids, document_width):
        """The trial's head `name` over `embedding` and the descriptions `label_ids` (override to fix options).

        `document_width` is the width of the encoder's document vectors. The
        head's searched option (`SEARCHED_OPTIONS[name]`) is read from `hp`;
        every other option is the head's default, but DRILL's: `tanh`, and
        `input_projection` when the document and word vectors differ in width.
        """
        if name in COMPOSED_HEADS:
            raise ValueError(
                f"A {name!r} head is made of other heads: override `build_head` to build it. Received: name={name!r}"
            )
        options = {"embedding": embedding, "label_ids": label_ids, "bias_initializer": self.output_bias()}
        option = SEARCHED_OPTIONS.get(name)
        if option is not None and option in CHOICE_ARGUMENTS:
            options[option] = hp[option]
        if name == "drill":
            options.update(activation="tanh", input_projection=document_width != embedding.output_dim)
        return head_class(name)(**options)

    def build(self, hp):
        """Builds and compiles one `LabelClassifier` (token ids in) from the values of `hp`."""
        values = self.declare_hyperparameters(hp)
        embedding, label_embedding = word_embeddings(
            self.vocabulary_size, dim=self.embedding_dim, vectors=self.word_vectors, fine_tune=self.fine_tune
        )
        encoder = self.build_encoder(hp, embedding)
        head = self.build_head(
            hp,
            values["head"],
            label_embedding if label_embedding is not None else embedding,
            self.label_ids,
            _width(encoder, self.token_shape),
        )
        model = LabelClassifier(encoder, head, preprocessor=None, labels=self.label_names, multi_label=True)
        model.compile(
            optimizer=keras.optimizers.Adam(values["learning_rate"]),
            loss=keras.losses.BinaryCrossentropy(from_logits=True),
            metrics=[_copy_metric(m) for m in self.metrics],
            jit_compile=self.jit_compile,
        )
        model(np.zeros((1, *self.token_shape), "int32"))  # builds every layer (a task builds on its first call)
        build_optimizer(model)  # one trace of the first training step, not two
        return model


# Singular names of the searched hyperparameters, and the argument that searches (or fixes) each.
_SEARCHED = {"head": "heads", "joint_dim": "joint_dims", "depth": "depths"}
_FIXED_HEAD_OPTION = (
    "a fixed option of a head is set by a subclass that overrides `build_head` (see LabelHeadHyperModel's docstring)"
)
# Arguments the hypermodel does not take, with what to do instead.
_HINTS = {
    "head_options": _FIXED_HEAD_OPTION,
    "embedding": "pass `embedding_dim=`, `word_vectors=` and `fine_tune=`",
    "num_labels": "the label heads score labels from `label_ids` (`num_labels` is for a linear head)",
}
