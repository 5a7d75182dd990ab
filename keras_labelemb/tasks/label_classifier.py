"""`LabelClassifier`: one Keras model from raw strings to label names, with its preprocessor, encoder, head, labels."""

import json
import math
import os
import sys
import weakref

import keras
import numpy as np

from keras_labelemb.evaluation.thresholds import DEFAULT_THRESHOLD, labels_at_thresholds, tune_thresholds
from keras_labelemb.layers.adaptive_label_decoder import AdaptiveLabelDecoder
from keras_labelemb.layers.label_head import LabelHead
from keras_labelemb.losses.sampled_sigmoid_loss import multi_hot_from_indices
from keras_labelemb.models.relabel import output_label_head, rebuild_compiled_functions
from keras_labelemb.tasks.labels import check_labels, label_index_targets, multi_hot_targets
from keras_labelemb.tasks.sampled_step import sampled_indices_loss, sampled_multi_hot_loss, sampled_step_metrics
from keras_labelemb.training._replicas import num_replicas_in_sync
from keras_labelemb.training.optimizer_build import build_optimizer

# TensorFlow (tf.data, tensorflow-text) is imported where raw strings are read: fed token ids, the task trains,
# predicts, relabels, indexes and samples labels on every Keras backend without it.

LABELS_FILE = "labels.json"
# What a sampled training step's forward pass gives `compute_loss`: the head's input, not the (B, L) logits.
SAMPLED_FEATURES = "document_vectors"
# The target label sequence a label-sequence decoder (CNLE) is trained on by teacher forcing.
LABEL_SEQUENCE = "label_sequence"
# model -> {id(head): encoder}: a model cut again (`from_model` on it twice) reuses its encoder and that
# encoder's compiled predict function instead of tracing a new one.
_ENCODERS = weakref.WeakKeyDictionary()


@keras.saving.register_keras_serializable(package="keras_labelemb")
class LabelClassifier(keras.Model):
    """A text classifier that knows its labels: raw strings in, label names out.

    In the shape of keras-hub's `Task` and setfit's `SetFitModel(body, head)`,
    the classifier holds `.preprocessor` (raw strings -> token ids;
    descriptions -> label ids), `.encoder` (token ids -> the document vector:
    any layer or model, e.g. an `Embedding` and `HierarchicalAttention` in a
    `keras.Sequential`), `.head` (a `LabelHead`: `GileHead`, `DrillHead`,
    `LinearHead`, ...) and `.labels`, the label names with their
    descriptions, saved with the model together with their thresholds.

    - `fit`, `evaluate`, `predict` take raw strings (a list, a 1-D array of
      `str`, or a `tf.data.Dataset` of `(strings, multi-hot targets)`);
      targets are multi-hot arrays `(N, L)` or, per document, a list of label
      names (single-label: one name). The first `fit` of a classifier built
      by `from_preset` adapts the vocabulary to its texts (and every word of
      the descriptions) and builds the preset's layers.
    - Multi-label by default: sigmoid scores, binary cross-entropy from
      logits, micro-F1. `multi_label=False`: softmax, categorical
      cross-entropy, accuracy; `predict_labels` gives the top label.
    - `predict(texts)` returns scores `(N, L)` (probabilities);
      `predict_labels(texts)` label names at thresholds tuned on `fit`'s
      `validation_data` (or by `tune_thresholds`: per label, or one for all
      where per-label ones do not hold up on held-out halves), 0.5 for labels
      never tuned; `predict_top_k(texts, k)` `(name, score)` pairs.
    - `set_labels({"gold": "gold and silver mining", ...})` relabels (zero-shot
      for heads that read descriptions; a per-label head takes only its own
      count); thresholds of kept names are kept.
    - `save("x.keras")` / `keras.saving.load_model` keep vocabulary, labels,
      thresholds and weights; `export(path)` writes a SavedModel that serves
      raw strings (`serve`, `serve_with_labels`, `query_vectors`).
    - A wide + deep head (`HybridHead` of a deep head and a `WideHead`, the
      `wide_deep` preset) trains in three steps (`fit`); `compile(loss=
      SampledSigmoidLoss(...))` trains on sampled labels; `build_label_index`
      makes `predict_top_k` search a `LabelIndex`.

    Args:
        encoder: a layer or model from the preprocessor's token ids to `(B, d)`
            (or to the document dict, as `SentenceEncoder` gives).
        head: a `LabelHead`. A head that reads descriptions gets the label
            set from `labels`; a `LinearHead` must have `len(labels)` labels.
        preprocessor: a `LabelClassifierPreprocessor` whose vectorizer has
            the vocabulary the encoder's embedding was built for, or `None`
            to feed token ids yourself (then `fit`/`predict` take ids).
        labels: a dict `{name: description}`, or a list of names (each name
            is then its own description).
        multi_label: True (default) or False (one label per document).

    Example:

    >>> import keras_labelemb as kl
    >>> texts = ["wheat prices rose", "the bank raised rates", "grain harvest up", "rates cut again"]
    >>> classifier = kl.tasks.LabelClassifier.from_preset(
    ...     "gile_wan", labels={"grain": "wheat and grain", "interest": "interest rates"}
    ... )
    >>> history = classifier.fit(texts, [["grain"], ["interest"], ["grain"], ["interest"]], epochs=1, verbose=0)
    >>> len(classifier.predict_labels(["wheat harvest"])[0]) >= 1
    True
    """

    def __init__(self, encoder, head, preprocessor=None, labels=None, multi_label=True, head_first=False, **kwargs):
        super().__init__(**kwargs)
        self.multi_label = _check_bool("multi_label", multi_label)
        self.head_first = _check_bool("head_first", head_first)  # `fit` runs `fit_head` first
        names, descriptions = check_labels(labels)
        self._names, self._descriptions = names, descriptions
        self._thresholds = np.full(len(names), DEFAULT_THRESHOLD, "float32")
        self.threshold_mode = None  # "per_label" or "global" once tuned
        self.sampled_loss = None  # `compile(loss=SampledSigmoidLoss(...))`
        # A sampled step's log; created here, as Keras tracks a model's state only before it is built.
        self.dropped_positives = keras.metrics.Mean(name="dropped_positives")
        self.label_index = None  # `build_label_index`
        self.cut_from_model = False  # `from_model`: the encoder gives what the head reads, from the model's inputs
        self._idf_adapted = False  # the first `fit` sets the idf of heads that have one (`head.adapt`)
        if preprocessor is not None:
            from keras_labelemb.tasks.label_classifier_preprocessor import LabelClassifierPreprocessor

            if not isinstance(preprocessor, LabelClassifierPreprocessor):
                raise ValueError(
                    "`preprocessor` must be a LabelClassifierPreprocessor or None (feed token ids). "
                    f"Received: preprocessor={preprocessor!r:.200}"
                )
        self.preprocessor = preprocessor
        self._recipe = None
        self.default_loss = None  # a preset's loss (its recipe names one), used by `compile(loss="auto")`
        self.encoder, self.head = None, None
        if encoder is not None or head is not None:
            self._set_layers(encoder, head)
        self.compile()

    # -- construction -----------------------------------------------------------------------
    def _set_layers(self, encoder, head):
        if not isinstance(head, LabelHead):
            raise ValueError(
                "`head` must be a LabelHead (GileHead, DrillHead, LinearHead, CosineHead, ...). "
                f"Received: head={head!r:.200}"
            )
        if not callable(encoder):
            raise ValueError(f"`encoder` must be a Keras layer or model. Received: encoder={encoder!r:.200}")
        self.encoder, self.head = encoder, head
        self._give_head_labels()

    def _give_head_labels(self, relabel=False, label_ids=None):
        if label_ids is not None and (self.preprocessor is not None or not self.head.reads_descriptions):
            reason = (
                "the preprocessor encodes the descriptions"
                if self.preprocessor is not None
                else (f"{type(self.head).__name__} reads no descriptions")
            )
            raise ValueError(
                "`label_ids` are the description token ids of a classifier fed ids (no preprocessor) whose head "
                f"reads descriptions; here {reason}. Received: label_ids of shape {np.shape(label_ids)}"
            )
        if self.head.reads_descriptions:
            if self.preprocessor is None:
                if label_ids is not None:  # ids fed directly: the caller encoded the descriptions
                    if len(label_ids) != len(self._names):
                        raise ValueError(
                            f"`label_ids` must hold one row per label name. Received: {len(label_ids)} rows for "
                            f"{len(self._names)} names"
                        )
                    self.head.set_labels(label_ids)
                    return
                # Ids fed directly: the head's own label set (its `label_ids`), which `labels` names.
                if relabel or self.head.num_labels != len(self._names):
                    raise ValueError(
                        f"{type(self.head).__name__} reads label descriptions: give a `preprocessor` to encode "
                        "them, or (feeding ids) their token ids (`set_labels(names, label_ids=...)`, or the "
                        "head's `label_ids`) and as many `labels` names. "
                        f"Received: preprocessor=None, head label set of {self.head.num_labels} labels, "
                        f"{len(self._names)} names" + (" (set_labels)" if relabel else "")
                    )
                return
            self.head.set_labels(self.preprocessor.encode_labels(self._descriptions))
        elif self.head.num_labels != len(self._names):
            raise ValueError(
                f"{type(self.head).__name__} has {self.head.num_labels} per-label outputs. "
                f"Received: labels with {len(self._names)} names"
            )

    @classmethod
    def from_model(cls, model, preprocessor=None, labels=None, multi_label=True, head=None):
        """The task over a Keras model you built, whose output layer is a `LabelHead`.

        A `keras.Sequential` or functional model (e.g. `gile_wan(...)`,
        `document_classifier(...)`) is cut at its head once, here: the
        classifier's `encoder` is the model up to the head's input (it shares
        every weight with `model`), its `head` the head. Everything the task
        does (`predict_labels` at tuned thresholds, `set_labels`,
        `build_label_index`, `export`, sampled training) then works on the
        model's weights. The export, index and top-k functions that take a
        plain model go through this.

        Args:
            model: a built model whose only output is its label head's.
            preprocessor: as the constructor's (None: fed token ids).
            labels: the label names (default `label_0`, `label_1`, ...) or
                `{name: description}` (then the head is relabelled from the
                descriptions, which needs `preprocessor`).
            multi_label: as the constructor's.
            head: the head to cut at, when the model holds several.

        >>> import numpy as np
        >>> from keras_labelemb.models import gile_wan
        >>> model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, units=4, joint_dim=4)
        >>> classifier = LabelClassifier.from_model(model, labels=["grain", "rates"])
        >>> classifier.head.name, classifier.predict(np.ones((1, 6), "int32")).shape
        ('gile_head', (1, 2))
        """
        encoder, head = _split_at_head(model, head)
        if labels is None:
            labels = [f"label_{i}" for i in range(head.num_labels)]
        classifier = cls(encoder, head, preprocessor=preprocessor, labels=labels, multi_label=multi_label)
        classifier.cut_from_model = True
        return classifier

    @staticmethod
    def presets():
        """`{name: description}` of the named presets `from_preset` builds."""
        from keras_labelemb.tasks.presets import presets

        return presets()

    @classmethod
    def from_preset(cls, preset, labels, **overrides):
        """A classifier from a named recipe (`LabelClassifier.presets()`) or a folder written by `save_to_preset`.

        A named recipe builds its layers at the first `fit` (or `adapt`), once
        the vocabulary is known. `overrides` replace the recipe's top-level
        options (`multi_label`, `max_tokens`, `description_length`, `embedding_dim`).
        """
        from keras_labelemb.tasks.presets import load_preset

        if isinstance(preset, (str, os.PathLike)) and os.path.isdir(preset):
            classifier = keras.saving.load_model(os.path.join(preset, "model.keras"))
            if labels is not None:
                classifier.set_labels(labels)
            return classifier
        recipe = load_preset(preset, overrides)
        classifier = cls(
            encoder=None,
            head=None,
            preprocessor=recipe.preprocessor(),
            labels=labels,
            multi_label=recipe.multi_label,
            head_first=recipe.head_first,
        )
        classifier._recipe = recipe
        if recipe.loss is not None:
            classifier.default_loss = recipe.loss
            classifier.compile()
        if recipe.sentence_encoder is not None:  # nothing to adapt: built now, and scores labels untrained
            classifier._build_recipe()
        return classifier

    def save_to_preset(self, path):
        """Writes the classifier (config, vocabulary, labels, thresholds, weights) to the folder `path`."""
        from keras_labelemb.tasks.presets import save_preset

        self._require_layers("save_to_preset")
        os.makedirs(path, exist_ok=True)
        self.save(os.path.join(path, "model.keras"))
        save_preset(path, type(self).__name__, self.labels)
        return path

    def adapt(self, texts):
        """Adapts the preprocessor to training `texts` (and every description word) and builds the preset's layers."""
        if self._recipe is None:
            raise ValueError(
                "`adapt` builds a classifier made by `from_preset`; this one was given its layers. "
                "Received: a classifier with layers"
            )
        self.preprocessor.adapt(texts, self._descriptions)
        self._build_recipe()

    def _build_recipe(self):
        from keras_labelemb.tasks.presets import build_from_recipe

        label_ids = self.preprocessor.encode_labels(self._descriptions)
        encoder, head = build_from_recipe(self._recipe, self.preprocessor.vocabulary_size, label_ids)
        self._set_layers(encoder, head)
        self._recipe = None

    def _require_layers(self, what):
        if self.head is None:
            raise ValueError(
                f"`{what}` needs a built classifier: call `fit(texts, targets)` or `adapt(texts)` first "
                "(a preset builds its layers once it has seen the vocabulary). Received: an unbuilt classifier"
            )

    # -- the labels -----------------------------------------------------------------------
    @property
    def labels(self):
        """`{name: description}` of the current label set, in score order."""
        return dict(zip(self._names, self._descriptions))

    @property
    def label_names(self):
        return list(self._names)

    @property
    def thresholds(self):
        """`{name: threshold}` `predict_labels` applies."""
        return dict(zip(self._names, self._thresholds.tolist()))

    def set_thresholds(self, thresholds):
        """Sets thresholds by name (`{name: float}`); names not given keep theirs."""
        if not isinstance(thresholds, dict):
            raise ValueError(f"`thresholds` must be a dict {{name: float}}. Received: thresholds={thresholds!r:.200}")
        position = {name: i for i, name in enumerate(self._names)}
        unknown = sorted(set(thresholds) - set(position))
        if unknown:
            raise ValueError(
                f"`thresholds` names labels the classifier does not have. Received: unknown names {unknown}"
            )
        for name, value in thresholds.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"A threshold is a score in [0, 1]. Received: thresholds[{name!r}]={value!r}")
            self._thresholds[position[name]] = value

    def set_labels(self, labels, label_ids=None):
        """Replaces the label set by `labels` (`{name: description}` or a list of names).

        Heads that read descriptions score any new label (zero-shot); a
        per-label head accepts only as many labels as it has outputs.
        Thresholds of names kept are kept; new names get 0.5. The compiled
        train/test/predict functions are rebuilt.

        A classifier fed token ids (no preprocessor) takes the descriptions'
        token ids as `label_ids` `(L, Lw)`, one row per name, encoded as its
        documents are (`TextVectorizer.encode_labels`).
        """
        names, descriptions = check_labels(labels)
        old = self.thresholds
        previous = (self._names, self._descriptions)
        self._names, self._descriptions = names, descriptions
        if self.head is not None:
            try:
                self._give_head_labels(relabel=True, label_ids=label_ids)
            except ValueError:
                self._names, self._descriptions = previous
                raise
        self._thresholds = np.array([old.get(name, DEFAULT_THRESHOLD) for name in names], "float32")
        rebuild_compiled_functions(self)
        if self.label_index is not None:
            self.label_index.build()  # it belongs to the label set it was built for

    # -- the model -----------------------------------------------------------------------
    def call(self, inputs, training=None):
        self._require_layers("call")
        if isinstance(inputs, dict) and LABEL_SEQUENCE in inputs:  # a decoder's training step: teacher forcing
            return self._teacher_forced(inputs, training)
        document = self._document_model()(inputs, training=training)
        if training and self.sampled_loss is not None:  # the step scores sampled labels (compute_loss)
            return {SAMPLED_FEATURES: document}
        return self.head(document, training=training)

    def _teacher_forced(self, inputs, training):
        """A label-sequence decoder's step logits `(B, max_steps, c)` for the target sequence (CNLE's training)."""
        token_ids = inputs["token_ids"]
        encoded = self.encoder(token_ids, training=training)
        # The head's `call` itself: its graph call stays the one from the text alone (the decoded sets).
        return self.head.call(
            encoded, label_sequence=inputs[LABEL_SEQUENCE], mask=keras.ops.not_equal(token_ids, 0), training=training
        )

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        if not isinstance(y_pred, dict):  # every label scored: the compiled loss (full cross-entropy)
            return super().compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=training)
        if self._label_indices:
            loss = sampled_indices_loss(self, y, y_pred[SAMPLED_FEATURES], sample_weight)
        else:
            loss = sampled_multi_hot_loss(self, y, y_pred[SAMPLED_FEATURES], sample_weight)
        for extra in self.losses:  # the layers' regularisers
            loss = loss + keras.ops.cast(keras.ops.sum(extra), loss.dtype)
        # The replica's share of the global mean (gradients are summed over replicas), as Keras' losses do.
        return loss / float(num_replicas_in_sync())

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        if isinstance(y_pred, dict):  # a sampled step never scored every label
            return sampled_step_metrics(self, len(self._names))
        if self._label_indices and y is not None:  # the metrics read multi-hot rows
            y = multi_hot_from_indices(y, len(self._names))
        results = super().compute_metrics(x, y, y_pred, sample_weight)
        results.pop("dropped_positives", None)
        return results

    @property
    def _label_indices(self):
        return self.sampled_loss is not None and self.sampled_loss.targets == "label_indices"

    def compile(self, optimizer="auto", loss="auto", metrics="auto", **kwargs):
        """`compile` with the task's defaults: Adam(1e-3); binary (multi-label) or categorical cross-entropy, or
        the loss a preset's recipe names (`default_loss`; `minilm_generalized` trains with `LabelSoftmaxLoss`);
        micro-F1 or accuracy.

        `loss=SampledSigmoidLoss(num_negatives=k)` trains on sampled labels: each step scores the batch's
        positive labels and `k` negatives (`head.score_subset`), so its cost does not grow with the label
        count; `evaluate` and `predict` score every label (full binary cross-entropy, the metrics). The
        training logs hold `loss` (sampled) and `dropped_positives`.
        """
        from keras_labelemb.losses import SampledSigmoidLoss
        from keras_labelemb.metrics import MicroF1

        if metrics is None:  # none (Keras would keep the metrics of the constructor's compile)
            metrics = []
        self._compile_arguments = dict(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)
        if isinstance(self.head, AdaptiveLabelDecoder):
            return self._compile_decoder(optimizer, loss, metrics, **kwargs)
        self.sampled_loss = loss if isinstance(loss, SampledSigmoidLoss) else None
        if self.sampled_loss is not None:
            if not self.multi_label:
                raise ValueError(
                    "SampledSigmoidLoss samples per-label (sigmoid) targets; a single-label classifier's softmax "
                    "needs every label. Received: multi_label=False"
                )
            self.sampler = self.sampled_loss.label_sampler
            if getattr(self, "sampler_seed", None) is not self.sampler.seed_generator:
                if self.built:  # Keras locks a built model's state: the sampler's seed could not be tracked
                    raise ValueError(
                        "Compile with SampledSigmoidLoss before the classifier is built (before its first fit, "
                        "evaluate or predict): its sampler's seed becomes part of the model's state then. "
                        "Received: a built classifier"
                    )
                self.sampler_seed = self.sampler.seed_generator  # tracked: its state advances under every backend

        if optimizer == "auto":
            optimizer = keras.optimizers.Adam(1e-3)
        if loss == "auto" and self.default_loss is not None:
            loss = self.default_loss
        elif loss == "auto":
            loss = (
                keras.losses.BinaryCrossentropy(from_logits=True)
                if self.multi_label
                else keras.losses.CategoricalCrossentropy(from_logits=True)
            )
        if metrics == "auto":
            metrics = (
                [MicroF1(from_logits=True)] if self.multi_label else [keras.metrics.CategoricalAccuracy("accuracy")]
            )
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)
        if self.head is not None:
            build_optimizer(self)  # layers built (a model you built): one trace of the first training step, not two

    def _compile_decoder(self, optimizer, loss, metrics, **kwargs):
        """A label-sequence decoder's defaults (CNLE): the paper's warmed-up Adam (`cnle_optimizer` at the
        encoder's width), `LabelSequenceLoss` over the teacher-forced steps, no per-label metric (the decoded
        sets are scored on `validation_data` by `DecodedValidation`)."""
        from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
        from keras_labelemb.training.cnle_training import cnle_optimizer

        self.sampled_loss = None
        if optimizer == "auto":
            optimizer = cnle_optimizer(self.head.encoder.model_dim if self.head.encoder is not None else 256)
        if loss == "auto":
            loss = LabelSequenceLoss()
        if metrics == "auto":
            metrics = []
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)
        build_optimizer(self)
        self._compiled_for_decoder = True

    # -- data -----------------------------------------------------------------------
    def _targets(self, y, count, soft=False):
        if self._label_indices:
            return label_index_targets(y, self._names, count)
        return multi_hot_targets(y, self._names, count, self.multi_label, soft=soft)

    def _keras_data(self, x, y=None, batch_size=None, shuffle=None, checked=False, soft=False):
        """What Keras' `fit`/`evaluate`/`predict` take for `x` (and `y`), as keyword arguments.

        Fed token ids (no preprocessor): the NumPy ids (a dict of them for a model that reads several) and
        targets with `batch_size`, as a plain `keras.Model` takes them, so no TensorFlow is needed. Raw strings:
        a batched `tf.data.Dataset` whose map runs the preprocessor. A `tf.data.Dataset` given: mapped.
        """
        if self.preprocessor is None and not _is_dataset(x):
            inputs = x if checked else self._inputs(x)
            data = {"x": inputs, "batch_size": batch_size or 32}
            if y is not None:
                data["y"] = self._targets(y, _count(inputs), soft)
            if shuffle is not None:
                data["shuffle"] = shuffle
            return data
        shuffled = bool(shuffle) and not _is_dataset(x)
        data = {"x": self._dataset(x, y, batch_size, shuffle=shuffled, checked=checked, soft=soft)}
        if shuffle is not None:
            data["shuffle"] = False  # shuffled in the dataset
        return data

    def _dataset(self, x, y=None, batch_size=None, shuffle=False, checked=False, soft=False):
        """A batched `tf.data.Dataset` of `(ids, targets)` (or ids) from raw strings, or `x` mapped if a dataset."""
        import tensorflow as tf

        if _is_dataset(x):
            spec = x.element_spec[0] if isinstance(x.element_spec, tuple) else x.element_spec
            if self.preprocessor is None or getattr(spec, "dtype", None) != tf.string:
                return x  # ids already (Keras' fit evaluates the validation data it was given through here)
            vectorize = self.preprocessor.call
            return x.map(lambda texts, *rest: (vectorize(texts), *rest), num_parallel_calls=tf.data.AUTOTUNE)
        inputs = x if checked else self._inputs(x)
        count = _count(inputs)
        parts = inputs if y is None else (inputs, self._targets(y, count, soft))
        dataset = tf.data.Dataset.from_tensor_slices(parts)
        if shuffle:
            dataset = dataset.shuffle(count, reshuffle_each_iteration=True)
        dataset = dataset.batch(batch_size or 32)
        if self.preprocessor is not None:
            vectorize = self.preprocessor.call
            if y is None:
                dataset = dataset.map(vectorize, num_parallel_calls=tf.data.AUTOTUNE)
            else:
                dataset = dataset.map(lambda t, y: (vectorize(t), y), num_parallel_calls=tf.data.AUTOTUNE)
        return dataset.prefetch(tf.data.AUTOTUNE)

    def _inputs(self, x):
        """`x` as a list of `str` (checked), or, for a classifier without a preprocessor, NumPy ids (a dict of
        inputs for a model that reads several, e.g. `{"token_ids", "features"}`)."""
        if self.preprocessor is not None:
            return _check_texts(x)
        if isinstance(x, dict):
            return {name: value if _is_sparse(value) else np.asarray(value) for name, value in x.items()}
        return x if _is_sparse(x) else np.asarray(x)

    def _texts_of(self, x):
        if _is_dataset(x):
            return [t.decode("utf-8") for t in x.map(lambda texts, *rest: texts).unbatch().as_numpy_iterator()]
        return _check_texts(x)

    def fit(self, x=None, y=None, batch_size=None, epochs=1, validation_data=None, shuffle=True, **kwargs):
        """Trains on raw strings; tunes thresholds on `validation_data` `(texts, targets)` afterwards.

        A wide + deep head (a `HybridHead` of a deep head and a `WideHead`, the
        `wide_deep` preset) is trained in three steps, the recipe measured in
        `benchmarks/seen_labels.py`: the wide path is solved as linear SVMs on
        the preprocessor's tf-idf features (scikit-learn; the n-gram length and
        `C` chosen on `validation_data`), the deep path is trained alone by Keras (the
        callbacks see it alone), then the two logits are mixed with the weight
        that scores best on `validation_data` (0.5 of each, scaled alike,
        without it). `history.wide_deep` holds the n-grams, `C` and the mix.
        """
        if self.head is None:
            self.adapt(self._texts_of(x))
        if _weighs_idf(self.head) and not self._idf_adapted and self.preprocessor is not None:
            self._adapt_idf(self._texts_of(x))
        if isinstance(self.head, AdaptiveLabelDecoder):
            return self._fit_decoder(x, y, batch_size, epochs, validation_data, shuffle, **kwargs)
        if self.preprocessor is not None and self.preprocessor.features is not None:
            from keras_labelemb.tasks.wide_path import wide_component

            wide = wide_component(self.head)
            if wide is not None:
                return self._fit_wide_deep(wide, x, y, batch_size, epochs, validation_data, shuffle, **kwargs)
        head_history = None
        if self.head_first:
            verbose = kwargs.get("verbose", "auto")
            head_history = self.fit_head(x, y, validation_data, batch_size=batch_size or 32, verbose=verbose)
        history = self._fit(x, y, batch_size, epochs, validation_data, shuffle, **kwargs)
        if head_history is not None:
            history.head_first = head_history.history
        return history

    def fit_head(self, x, y, validation_data=None, epochs=200, batch_size=32, optimizer=None, patience=5, verbose=2):
        """Trains the head alone on the frozen encoder's document vectors, computed once; returns the History.

        The first step of Keras' transfer-learning recipe before fine-tuning a
        pretrained encoder (the `minilm_fine_tuned` preset's `fit` runs it
        first): a per-label head started at random over unit-length sentence
        vectors needs thousands of steps at a fine-tuning learning rate, while
        its random gradients move the encoder. Here an epoch is a pass over
        vectors, not through the encoder. With `validation_data` (texts and
        targets), the epoch with the best validation micro-F1 at its best
        threshold (multi-label) or accuracy is kept, stopping after `patience`
        epochs without a better one, and the thresholds are tuned on it;
        without it, `epochs` are run. Trained with the compiled loss and
        `optimizer` (default Adam(1e-3)); the encoder is not touched.

        Example:

        >>> import keras_hub
        >>> from keras_labelemb.layers import LinearHead, SentenceEncoder
        >>> backbone = keras_hub.models.BertBackbone(
        ...     vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=6)
        >>> classifier = LabelClassifier(SentenceEncoder(backbone, fine_tune=True), LinearHead(2), labels=["a", "b"])
        >>> ids = np.array([[2, 5, 7, 3, 0, 0], [2, 9, 3, 0, 0, 0]] * 8)
        >>> targets = np.array([[1, 0], [0, 1]] * 8)
        >>> before = keras.ops.convert_to_numpy(backbone.weights[0]).copy()
        >>> history = classifier.fit_head(ids, targets, epochs=3, verbose=0)
        >>> len(history.history["loss"]), np.array_equal(before, keras.ops.convert_to_numpy(backbone.weights[0]))
        (3, True)
        """
        from keras_labelemb.training import BestValidationF1
        from keras_labelemb.training.best_epoch_stopping import BestEpochStopping

        self._require_layers("fit_head")
        if self.head.reads_tokens or isinstance(self.head, AdaptiveLabelDecoder) or self.sampled_loss is not None:
            raise ValueError(
                "`fit_head` trains a head that reads one vector per document on a full loss. Received: "
                f"head={self.head.name!r} (reads_tokens={self.head.reads_tokens}), sampled loss "
                f"{self.sampled_loss is not None}"
            )
        if _is_dataset(x) or _is_dataset(validation_data):
            raise ValueError("`fit_head` takes texts (or ids) and targets as lists or arrays. Received: tf.data")
        if _count(self._inputs(x)) == 0:
            raise ValueError("`fit_head` needs at least one document. Received: x with 0 documents")
        if not self.built:
            self(self._first_inputs(x))
        vectors = self._document_vectors(x, batch_size)
        head = keras.Sequential([keras.Input(vectors.shape[1:]), self.head], name=f"{self.head.name}_alone")
        head.compile(
            optimizer or keras.optimizers.Adam(1e-3), loss=self.loss, metrics=[] if self.multi_label else ["accuracy"]
        )
        callbacks, validation = [], None
        if validation_data is not None:
            val_x, val_y = _pair("validation_data", validation_data)
            val_vectors = self._document_vectors(val_x, batch_size)
            val_targets = self._targets(val_y, len(val_vectors))
            if self.multi_label:
                callbacks.append(BestValidationF1(val_vectors, val_targets, from_logits=True, patience=patience))
            else:
                callbacks.append(BestEpochStopping("val_accuracy", patience))
                validation = (val_vectors, val_targets)
        history = head.fit(
            vectors,
            self._targets(y, len(vectors)),
            epochs=epochs,
            batch_size=batch_size,
            validation_data=validation,
            callbacks=callbacks,
            verbose=verbose,
        )
        if validation_data is not None and self.multi_label:
            self.tune_thresholds(val_x, val_y)
        return history

    def _first_inputs(self, x):
        inputs = self._inputs(x)
        if self.preprocessor is not None:
            return self.preprocessor(inputs[:1])
        return {k: v[:1] for k, v in inputs.items()} if isinstance(inputs, dict) else inputs[:1]

    def _document_vectors(self, x, batch_size=None):
        """What the head reads of `x` (one vector per document), as float32 NumPy, through the frozen encoder."""
        inputs, step = self._inputs(x), max(batch_size or 64, 64)
        encoder = self.document_encoder
        if self.preprocessor is None:
            return np.asarray(encoder.predict(inputs, batch_size=step, verbose=0), "float32")
        parts = [encoder.predict_on_batch(self.preprocessor(inputs[i : i + step])) for i in range(0, len(inputs), step)]
        return np.concatenate([np.asarray(keras.ops.convert_to_numpy(p), "float32") for p in parts])

    def _adapt_idf(self, texts):
        """Heads that weigh words by idf (`LexicalMatchHead`, a hybrid holding one) count the training texts."""
        if not self.built:
            self(self.preprocessor(texts[:1]))
        self.head.adapt(self._id_batches(texts))
        self._idf_adapted = True

    def _id_batches(self, texts):
        """The preprocessor's token ids (NumPy) of `texts`, 1,024 at a time."""
        for i in range(0, len(texts), 1024):
            out = self.preprocessor(texts[i : i + 1024])
            yield keras.ops.convert_to_numpy(out["token_ids"] if isinstance(out, dict) else out)

    def _fit(self, x, y, batch_size, epochs, validation_data, shuffle, tune=True, **kwargs):
        if self.sampled_loss is not None:
            self.sampler.check_label_count(len(self._names))
        data = self._keras_data(x, y, batch_size, shuffle=shuffle, soft=True)
        if self.sampled_loss is not None and not self.head.built:  # a sampled step scores through score_subset,
            self(_first_batch(data["x"]))  # which reads the head's weights: built here on one batch
        validation = None
        if validation_data is not None:
            if _is_dataset(validation_data):
                validation = self._dataset(validation_data, batch_size=batch_size)
            else:
                val = self._keras_data(*_pair("validation_data", validation_data), batch_size=batch_size)
                validation = (val["x"], val["y"]) if "y" in val else val["x"]
        history = super().fit(**data, epochs=epochs, validation_data=validation, **kwargs)
        tunable = tune and self.multi_label and not _is_dataset(validation_data) and not self._label_indices
        if validation_data is not None and tunable:
            self.tune_thresholds(*_pair("validation_data", validation_data))
        if (
            validation_data is not None
            and getattr(self.head, "per_label_dropout", 0)
            and not _is_dataset(validation_data)
        ):
            self.tune_new_label_offset(*_pair("validation_data", validation_data), batch_size=batch_size)
        return history

    def _fit_decoder(self, x, y, batch_size, epochs, validation_data, shuffle, **kwargs):
        """CNLE's recipe (`cnle` preset): the task trains itself by teacher forcing on label sequences
        (`LabelSequenceLoss`, the paper's warmed-up Adam: `compile`'s defaults for a decoder), keeping the
        epoch whose decoded `validation_data` sets score best (`DecodedValidation`, unless `callbacks` hold
        one). Callbacks see the classifier; the logs hold the teacher-forced `loss` (and `val_loss`)."""
        from keras_labelemb.losses.label_sequences import label_sequences
        from keras_labelemb.training.decoded_validation import DecodedValidation

        if _is_dataset(x) or _is_dataset(validation_data):
            raise ValueError(
                "A label-sequence decoder (CNLE) trains on texts and targets given as lists or arrays, not "
                "tf.data. Received: a tf.data.Dataset"
            )
        head, ids = self.head, self._ids(x)
        sequences = label_sequences(self._targets(y, len(ids)), max_steps=head.max_steps, multi_label=head.multi_label)
        if not self.built:
            self(ids[:1])
        if not getattr(self, "_compiled_for_decoder", False):  # compiled before the layers were known (a preset)
            self.compile(**self._compile_arguments)
        callbacks = list(kwargs.pop("callbacks", None) or [])
        validation = None
        if validation_data is not None:
            texts, val_y = _pair("validation_data", validation_data)
            val_ids = self._ids(texts)
            val_targets = self._targets(val_y, len(val_ids))
            val_sequences = label_sequences(val_targets, max_steps=head.max_steps, multi_label=head.multi_label)
            validation = ({"token_ids": val_ids, LABEL_SEQUENCE: val_sequences}, val_sequences)
            if not any(isinstance(callback, DecodedValidation) for callback in callbacks):
                # First: the callbacks after it (early stopping, checkpoints) read the scores it logs.
                callbacks.insert(0, DecodedValidation(self, texts, val_targets))
        return super().fit(
            {"token_ids": ids, LABEL_SEQUENCE: sequences},
            sequences,
            batch_size=batch_size or 32,
            epochs=epochs,
            validation_data=validation,
            shuffle=shuffle,
            callbacks=callbacks,
            **kwargs,
        )

    def _ids(self, x):
        """Token ids (NumPy) of raw strings through the preprocessor, or the ids given."""
        if self.preprocessor is None:
            return np.asarray(x)
        return np.concatenate(list(self._id_batches(_check_texts(x))))

    def _fit_wide_deep(self, wide, x, y, batch_size, epochs, validation_data, shuffle, **kwargs):
        from keras_labelemb.tasks.wide_path import (
            MIXES,
            choose_features,
            choose_mix,
            set_wide_weights,
            solve_wide_path,
            sparse_rows,
        )

        if _is_dataset(x) or _is_dataset(validation_data):
            raise ValueError(
                "A wide + deep classifier solves its wide path on all training texts at once: pass `x`, `y` and "
                "`validation_data` as texts and targets, not a tf.data.Dataset. Received: a tf.data.Dataset"
            )
        texts = _check_texts(x)
        targets = self._targets(y, len(texts))
        val_texts = val_targets = None
        if validation_data is not None:
            val_texts, val_targets = _pair("validation_data", validation_data)
            val_texts = _check_texts(val_texts, "validation_data texts")
            val_targets = self._targets(val_targets, len(val_texts))
        head, deep = self.head, 1 - wide
        # The features' n-grams are chosen before the model is built: the wide path's width depends on them.
        features = self.preprocessor.features
        if self.built:  # a second `fit`: the features (and the wide path's width) stay; C is chosen again
            rows = (None, None) if val_texts is None else (sparse_rows(features, val_texts), val_targets)
            solved = solve_wide_path(sparse_rows(features, texts), targets, *rows, multi_label=self.multi_label)
            solved["ngrams"] = features.ngrams
        else:
            solved = choose_features(features, texts, targets, val_texts, val_targets, multi_label=self.multi_label)
        if not self.built:
            self(self.preprocessor(texts[:1]))
        set_wide_weights(head.components[wide], solved, features.num_features)
        choice = {"ngrams": solved["ngrams"], "C": solved["C"], "val_score": solved["val_score"]}
        # The deep path trains alone: the wide path and the mix stay where they are set.
        head.components[wide].trainable = False
        head.weights_by_component.trainable = head.bias.trainable = False
        head.bias.assign(np.zeros(head.bias.shape, head.bias.dtype))
        head.weights_by_component.assign(np.eye(2, dtype=head.weights_by_component.dtype)[deep])
        rebuild_compiled_functions(self)
        history = self._fit(
            texts,
            targets,
            batch_size,
            epochs,
            None if val_texts is None else (val_texts, val_targets),
            shuffle,
            tune=False,
            **kwargs,
        )
        mix_texts, mix_targets = (texts, targets) if val_texts is None else (val_texts, val_targets)
        parts = []
        for index in range(2):  # each component's logits, through the model as it serves
            head.weights_by_component.assign(np.eye(2, dtype=head.weights_by_component.dtype)[index])
            parts.append(self.predict_logits(mix_texts, batch_size))
        mixed = choose_mix(parts, mix_targets, self.multi_label, MIXES if val_texts is not None else (0.5,))
        head.weights_by_component.assign(np.asarray(mixed["weights"], head.weights_by_component.dtype))
        choice.update(mix=mixed["mix"], mix_val_score=mixed["val_score"] if val_texts is not None else None)
        history.wide_deep = choice
        if val_texts is not None and self.multi_label:
            self.tune_thresholds(val_texts, val_targets)
        return history

    def evaluate(self, x=None, y=None, batch_size=None, **kwargs):
        self._require_layers("evaluate")
        if isinstance(x, dict) and LABEL_SEQUENCE in x:  # a decoder's teacher-forced validation (its fit)
            return super().evaluate(x=x, y=y, batch_size=batch_size, **kwargs)
        return super().evaluate(**self._keras_data(x, y, batch_size, soft=True), **kwargs)

    def predict(self, x, batch_size=None, verbose=0, **kwargs):
        """Scores `(N, L)`: sigmoid (multi-label) or softmax probabilities of every label for each text."""
        self._require_layers("predict")
        if not _is_dataset(x):
            x = self._inputs(x)
            if _count(x) == 0:
                return np.zeros((0, len(self._names)), "float32")
        data = self._keras_data(x, batch_size=batch_size, checked=not _is_dataset(x))
        logits = super().predict(**data, verbose=verbose, **kwargs)
        if isinstance(self.head, AdaptiveLabelDecoder):  # the decoded sets, 0/1 (a score of 1 for each label in it)
            return np.asarray(logits, "float32")
        return _activate(np.asarray(logits, "float32"), self.multi_label)

    def predict_logits(self, x, batch_size=None):
        """The head's raw scores `(N, L)`, before the sigmoid or softmax of `predict`: what to mix with other
        scorers (a blend, z-scores), where saturated probabilities would tie."""
        self._require_layers("predict_logits")
        if isinstance(self.head, AdaptiveLabelDecoder):
            raise ValueError(
                "A label-sequence decoder (CNLE) decodes label sets; it has no per-label logits. Received: head="
                f"{self.head.name!r}"
            )
        x = self._inputs(x)
        if _count(x) == 0:
            return np.zeros((0, len(self._names)), "float32")
        return np.asarray(
            super().predict(**self._keras_data(x, batch_size=batch_size, checked=True), verbose=0), "float32"
        )

    def predict_labels(self, x, batch_size=None):
        """Label names per text: those at or above their thresholds, at least the best; single-label: the top one;
        a label-sequence decoder (CNLE): its decoded set, which may be empty."""
        scores = self.predict(x, batch_size=batch_size)
        if not self.multi_label:
            return [self._names[i] for i in scores.argmax(axis=1)]
        decoded = isinstance(self.head, AdaptiveLabelDecoder)
        chosen = scores > 0.5 if decoded else labels_at_thresholds(scores, self._thresholds)
        return [[self._names[i] for i in np.flatnonzero(row)] for row in chosen]

    def predict_top_k(self, x, k=5, batch_size=None):
        """The `k` best labels of each text as `(name, score)` pairs, best first (`k` capped at the label count).

        With a label index (`build_label_index`) the labels come from its search: for many labels, the
        scores of the `k` found, not of all `L`.
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"`k` must be a positive int. Received: k={k!r}")
        if self.label_index is not None:
            return self._top_k_from_index(x, min(k, len(self._names)), batch_size)
        scores = self.predict(x, batch_size=batch_size)
        k = min(k, scores.shape[1])
        best = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return [[(self._names[i], float(row[i])) for i in order] for row, order in zip(scores, best)]

    def build_label_index(self, kind="flat", **options):
        """Builds a `LabelIndex` over the label vectors; `predict_top_k` then searches it.

        For heads whose scores are inner products (`GileHead`, `DrillHead`,
        `LinearHead`, `CosineHead`, `SentenceMatchHead`) of a multi-label
        classifier. `kind` and `options` are `LabelIndex`'s (`"flat"` exact;
        `"ivf"`, `"ivf_pq"`, `"hnsw"` approximate; needs faiss). The index is
        rebuilt by `set_labels`; it is not saved with the model (build it
        again after loading). Returns the index.
        """
        from keras_labelemb.evaluation.label_index import LabelIndex

        self._require_layers("build_label_index")
        if not self.multi_label:
            raise ValueError(
                "A label index serves per-label (sigmoid) scores; a single-label classifier's softmax needs every "
                "label's logit. Received: multi_label=False"
            )
        self.label_index = LabelIndex(self, kind=kind, verbose=0, **options)
        return self.label_index

    def _top_k_from_index(self, x, k, batch_size):
        texts = self._inputs(x)
        if len(texts) == 0:
            return []
        step = batch_size or 256
        if self.preprocessor is None:  # token ids given
            ids = texts
        else:
            batches = [self.preprocessor(texts[i : i + step]) for i in range(0, len(texts), step)]
            ids = np.concatenate([keras.ops.convert_to_numpy(batch) for batch in batches])
        indices, logits = self.label_index.search(ids, k, batch_size=step)
        scores = _activate(np.asarray(logits, "float32"), True)
        return [
            [(self._names[i], float(score)) for i, score in zip(row, row_scores) if i >= 0]
            for row, row_scores in zip(indices, scores)
        ]

    def tune_thresholds(self, x, y, batch_size=None):
        """Chooses thresholds on validation texts and targets; returns them by name.

        Per-label thresholds (each label's best F1) or one global threshold
        (the best micro-F1), whichever scores better on held-out halves of the
        data (`evaluation.thresholds.tune_thresholds`); `threshold_mode` says which.
        """
        if not self.multi_label:
            raise ValueError(
                "A single-label classifier predicts its top label; it has no thresholds. Received: multi_label=False"
            )
        if isinstance(self.head, AdaptiveLabelDecoder):
            raise ValueError(
                "A label-sequence decoder (CNLE) emits each text's label set; it has no thresholds to tune. "
                f"Received: head={self.head.name!r}"
            )
        scores = self.predict(x, batch_size=batch_size)
        targets = self._targets(y, len(scores))
        self._thresholds, self.threshold_mode = tune_thresholds(targets, scores)
        return self.thresholds

    def tune_new_label_offset(self, x, y, new_labels=None, draws=8, seed=0, batch_size=None):
        """Chooses where labels added later rank among the trained ones, on validation texts and targets.

        For a `HybridHead` trained with `per_label_dropout` (the `minilm_generalized` preset): labels scored
        from their descriptions alone (new ones) get the head's `unseen_offset`. Here some trained labels of
        the validation data are scored as new ones (`new_labels`, names; default `draws` draws of a
        `per_label_dropout` share of the labels with a validation document), and the offset is the one with
        the best harmonic mean of the average precision over them and over the others (every label ranked
        together), from a grid of step 0.25 around the learned offset, widened at its edges. `fit` calls it
        when given `validation_data`. Returns the offset.
        """
        from keras_labelemb.tasks.new_label_offset import tune_new_label_offset

        self._require_layers("tune_new_label_offset")
        offset, self.new_label_offset_curve = tune_new_label_offset(self, x, y, new_labels, draws, seed, batch_size)
        return offset

    # -- export -----------------------------------------------------------------------
    def export(self, filepath, format="tf_saved_model", verbose=False):
        """Writes a SavedModel that serves raw strings, preprocessing included.

        Endpoints: `serve(texts)` -> `{"scores": (B, L)}` (sigmoid, or softmax
        when `multi_label=False`: rows sum to 1); `serve_with_labels(texts,
        label_descriptions)` for heads that read descriptions;
        `query_vectors(texts)` for inner-product heads (what a `LabelIndex`
        searches with). The loaded object's `label_names[0]` and `thresholds[0]`
        variables hold the labels. Load with `load_text_classifier`.
        """
        import tensorflow as tf

        from keras_labelemb.export.text_classifier_export import write_serving_archive

        if format != "tf_saved_model":
            raise ValueError(f"A LabelClassifier exports as a SavedModel. Received: format={format!r}")
        self._require_layers("export")
        if self.preprocessor is None:
            raise ValueError("`export` serves raw strings: it needs the preprocessor. Received: preprocessor=None")
        document = self._document_model()
        return write_serving_archive(
            filepath,
            model=self,
            encoder=document,
            head=self.head,
            vectorize=self.preprocessor.call,
            vectorize_labels=self.preprocessor.vectorize_labels,
            tracked=[self.preprocessor.vectorizer]
            + ([self.preprocessor.features] if self.preprocessor.features is not None else []),
            activation="sigmoid" if self.multi_label else "softmax",
            extra={
                "label_names": tf.Variable(self._names, trainable=False, name="label_names"),
                "thresholds": tf.Variable(self._thresholds, trainable=False, name="thresholds"),
            },
        )

    @property
    def document_encoder(self):
        """A `keras.Model` from what the preprocessor gives to what the head reads (the model cut at its head).

        What a `LabelIndex` encodes queries with (`build_label_index`); it shares every weight with the task.
        """
        self._require_layers("document_encoder")
        if self.cut_from_model:  # the model cut at its head already is that
            return self.encoder
        # A view of the task's own layers, made when asked (a LabelIndex keeps the one it was built with).
        return DocumentEncoder(self.encoder, self._document_model())

    def _document_model(self):
        """What the head reads, as a function of token ids (the document dict for heads that read tokens)."""
        encoder, reads_tokens = self.encoder, self.head.reads_tokens

        if self.cut_from_model:  # the model's inputs in, what its head reads out (`from_model`)
            return lambda inputs, training=False: encoder(inputs, training=training)

        def document(inputs, training=False):
            # A preprocessor with a wide path gives `{"token_ids", "features"}`: the encoder reads the ids.
            ids = inputs["token_ids"] if isinstance(inputs, dict) else inputs
            pooled = encoder(ids, training=training)
            if isinstance(pooled, dict):  # an encoder that gives the document dict itself (SentenceEncoder)
                return pooled if reads_tokens else pooled["pooled"]
            if not reads_tokens:
                return pooled
            flat = ids if len(ids.shape) == 2 else keras.ops.reshape(ids, (-1, math.prod(ids.shape[1:])))
            parts = {"pooled": pooled, "token_ids": flat}
            if isinstance(inputs, dict):
                parts["features"] = inputs["features"]
            return parts

        return document

    # -- saving -----------------------------------------------------------------------
    def get_config(self):
        if self._recipe is not None:
            raise ValueError(
                "Save a classifier made by `from_preset` after `fit` or `adapt`: its layers are built then."
            )
        config = super().get_config()
        config.update(
            encoder=keras.saving.serialize_keras_object(self.encoder),
            head=keras.saving.serialize_keras_object(self.head),
            preprocessor=None if self.preprocessor is None else keras.saving.serialize_keras_object(self.preprocessor),
            # The names are config (a head needs its count); descriptions and thresholds are an asset.
            labels=self.label_names,
            multi_label=self.multi_label,
            head_first=self.head_first,
            cut_from_model=self.cut_from_model,
            default_loss=None if self.default_loss is None else keras.saving.serialize_keras_object(self.default_loss),
        )
        for head in [self.head, *getattr(self.head, "components", [])]:
            if getattr(head, "embedding", None) is not None:
                _mark_shared(config, head.embedding)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if config.get("preprocessor") is not None:  # registers it (and the text layers it holds)
            import keras_labelemb.tasks.label_classifier_preprocessor  # noqa: F401
        for key in ("encoder", "head", "preprocessor"):
            if config.get(key) is not None:
                config[key] = keras.saving.deserialize_keras_object(config[key])
        preprocessor, head = config.pop("preprocessor"), config.pop("head")
        cut_from_model = config.pop("cut_from_model", False)
        default_loss = config.pop("default_loss", None)
        classifier = cls(
            encoder=None, head=None, preprocessor=preprocessor, **{k: v for k, v in config.items() if k != "encoder"}
        )
        # The head's label set comes back from its own asset: do not encode the names-as-descriptions here.
        classifier.encoder, classifier.head = config["encoder"], head
        classifier.cut_from_model = cut_from_model
        if default_loss is not None:  # compiled again by `compile_from_config` (with the loss it was saved with)
            classifier.default_loss = keras.saving.deserialize_keras_object(default_loss)
        return classifier

    def build_from_config(self, config):
        # The encoder and the head come back built from their own build configs; the task holds no other state
        # that a shape decides (Keras' default would trace `call` on the recorded input shape and warn).
        self._build_shapes_dict = config

    def compile_from_config(self, config):
        """Compiles a loaded classifier as it was saved (optimizer, its state, loss, metrics), through `compile`."""
        config = keras.saving.deserialize_keras_object(config)
        # Loading marks the classifier built before it compiles (its state is not locked yet): a saved
        # SampledSigmoidLoss's sampler seed is tracked here, as `compile` before a first `fit` does, and loads.
        built, self.built = self.built, False
        try:
            self.compile(**config)
        finally:
            self.built = built
        if self.built and getattr(self, "optimizer", None) is not None:
            self.optimizer.build(self.trainable_variables)  # so the saved optimizer state loads into it

    def save_assets(self, dir_path):
        with open(os.path.join(dir_path, LABELS_FILE), "w", encoding="utf-8") as file:
            json.dump(
                {"names": self._names, "descriptions": self._descriptions, "thresholds": self._thresholds.tolist()},
                file,
                ensure_ascii=False,
            )

    def load_assets(self, dir_path):
        with open(os.path.join(dir_path, LABELS_FILE), encoding="utf-8") as file:
            stored = json.load(file)
        self._names, self._descriptions = list(stored["names"]), list(stored["descriptions"])
        self._thresholds = np.asarray(stored["thresholds"], "float32")


# -- the one place a model is cut at its head (`from_model`) ---------------------------------------------------
def _split_at_head(model, head=None):
    """`(encoder, head)`: the model from its inputs to what its head reads (the document dict for a head that
    reads tokens), and the head, which must be called once in the graph and give the model's only output."""
    if head is None:
        head = output_label_head(model)
    elif not isinstance(head, LabelHead):
        raise ValueError(f"`head` must be a LabelHead of `model`. Received: head={head!r:.200}")
    cached = _ENCODERS.setdefault(model, {})
    if id(head) in cached:
        return cached[id(head)], head
    try:
        head_input, head_output = head.input, head.output
        keys = getattr(head, "document_keys", None)
        if keys is not None:  # `input` flattens the document dict the head was called on, in key order
            flat = head_input if isinstance(head_input, list) else [head_input]
            head_input = dict(zip(keys, flat, strict=True))
    except (AttributeError, ValueError) as error:
        raise ValueError(
            "The label head must be called exactly once in `model`'s graph (a built functional or Sequential "
            f"model). Received: head={head.name!r} ({error})"
        ) from None
    if len(model.outputs) != 1 or model.outputs[0] is not head_output:
        raise ValueError(
            "The label head's output must be the model's only output. "
            f"Received: head={head.name!r} in a model with {len(model.outputs)} outputs"
            + ("" if len(model.outputs) != 1 else f" ({model.outputs[0].name!r} is not the head's output)")
        )
    cached[id(head)] = keras.Model(model.inputs, head_input, name=f"{model.name}_document_encoder")
    return cached[id(head)], head


def _is_dataset(x):
    """True for a `tf.data.Dataset` (there is none unless TensorFlow was imported)."""
    tf = sys.modules.get("tensorflow")
    return tf is not None and isinstance(x, tf.data.Dataset)


def _is_sparse(x):
    """A sparse input Keras' `fit` takes as it is: SciPy sparse rows, or a `tf.SparseTensor`."""
    scipy_sparse, tf = sys.modules.get("scipy.sparse"), sys.modules.get("tensorflow")
    return (scipy_sparse is not None and scipy_sparse.issparse(x)) or (
        tf is not None and isinstance(x, tf.SparseTensor)
    )


def _check_texts(texts, name="texts"):
    from keras_labelemb.tasks.label_classifier_preprocessor import check_texts

    return check_texts(texts, name)


def _first_batch(inputs):
    """One document of NumPy inputs (a dict of them), or the first batch of a dataset."""
    if _is_dataset(inputs):
        return next(iter(inputs.take(1)))[0]
    if isinstance(inputs, dict):
        return {name: _first_row(value) for name, value in inputs.items()}
    return _first_row(inputs)


def _first_row(value):
    return value[:1].toarray() if hasattr(value, "toarray") else value[:1]  # SciPy rows: a model takes tensors


def _count(inputs):
    """The number of documents in `inputs` (texts, ids, or a dict of inputs by name)."""
    if isinstance(inputs, dict):
        inputs = next(iter(inputs.values()))
    return int(inputs.shape[0]) if hasattr(inputs, "shape") else len(inputs)


def _mark_shared(config, layer):
    """Marks every serialized copy of `layer` in `config` as one shared object, so loading builds it once.

    A word embedding shared by the encoder and the head is serialized twice; Keras' own marking misses the
    copy inside a Sequential's config, and the loaded head would read an embedding of its own, untrained.
    """
    if isinstance(config, dict):
        inner = config.get("config")
        if (
            config.get("class_name") == type(layer).__name__
            and isinstance(inner, dict)
            and inner.get("name") == layer.name
        ):
            config["shared_object_id"] = id(layer)
        for value in config.values():
            _mark_shared(value, layer)
    elif isinstance(config, list):
        for value in config:
            _mark_shared(value, layer)


def _weighs_idf(head):
    """True for a head that weighs words by idf (`set_idf`), or a hybrid holding one."""
    return any(hasattr(part, "set_idf") for part in [head, *getattr(head, "components", [])])


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise ValueError(f"`{name}` must be True or False. Received: {name}={value!r}")
    return value


def _pair(name, value):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(
            f"`{name}` must be `(texts, targets)` or a tf.data.Dataset. Received: {name} of type {type(value).__name__}"
        )
    return value


def _activate(logits, multi_label):
    activation = keras.ops.sigmoid if multi_label else keras.ops.softmax
    return np.asarray(keras.ops.convert_to_numpy(activation(logits)), "float32")


class DocumentEncoder(keras.Model):
    """A task's encoder as the head reads it: ids (or the preprocessor's dict) -> `h` or the document dict."""

    def __init__(self, encoder, document, **kwargs):
        super().__init__(name="document_encoder", **kwargs)
        self.encoder = encoder  # tracked: its weights are this model's (JAX's stateless predict passes them)
        self._document = document

    def call(self, inputs, training=False):
        return self._document(inputs, training=training)
