"""The base of every output layer that scores a label set given as token ids of label descriptions."""

import math

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_label_indices, check_positive_int, known_values
from keras_labelemb.layers.label_encoder import LabelEncoder
from keras_labelemb.layers.label_set import LabelSet, validate_label_ids

# The label-side tensors a head lays out by name under a `keras.distribution` (model parallelism over labels).
LABEL_AXIS_TENSORS = ("label_embeddings", "logits")


# name -> head class, filled by `@register_head(name)` on each head: the one map from a head's short name (search
# spaces, benchmark flags) to its class.
_REGISTERED_HEADS = {}


def register_head(name):
    """Class decorator: registers a `LabelHead` subclass under `name` (`registered_heads()`, `head_class(name)`).

    >>> @register_head("my_head")
    ... class MyHead(LabelHead):
    ...     pass
    >>> head_class("my_head") is MyHead, MyHead.registered_name
    (True, 'my_head')
    >>> _ = _REGISTERED_HEADS.pop("my_head")
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"A head's registered name is a non-empty string. Received: name={name!r}")

    def register(cls):
        if not (isinstance(cls, type) and issubclass(cls, LabelHead)):
            raise ValueError(f"`register_head` decorates LabelHead subclasses. Received: {cls!r}")
        known = _REGISTERED_HEADS.get(name)
        if known is not None and known.__qualname__ != cls.__qualname__:  # a module reloaded keeps its name
            raise ValueError(f"The head name {name!r} is taken by {known.__name__}. Received: {cls.__name__}")
        _REGISTERED_HEADS[name] = cls
        cls.registered_name = name
        return cls

    return register


def prior_bias(num_labels):
    """The output-bias start of about one label per document: the log-odds `-log(L)` (0 for one label).

    With a zero bias every label starts at probability 0.5 although almost all
    are negative for any document, so the first updates go into pushing every
    score down (the prior initialisation of Lin et al. 2017, "Focal Loss for
    Dense Object Detection"); on Reuters the zero bias cost every head, DRILL
    most.

    >>> round(prior_bias(90).value, 3)
    -4.5
    """
    check_positive_int("num_labels", num_labels)
    return keras.initializers.Constant(-math.log(num_labels) if num_labels > 1 else 0.0)


def registered_heads():
    """`{name: head class}` of every registered head, in registration order."""
    return dict(_REGISTERED_HEADS)


def head_class(name):
    """The head class registered as `name`; a `ValueError` lists the names if there is none."""
    if name not in _REGISTERED_HEADS:
        raise ValueError(f"A head name is one of {sorted(_REGISTERED_HEADS)}. Received: {name!r}")
    return _REGISTERED_HEADS[name]


# The keys of the document structure a head that reads tokens receives (`LabelHead.reads_tokens`).
DOCUMENT_KEYS = ("pooled", "token_ids", "token_mask", "token_states", "features")


def document_parts(inputs):
    """`inputs` of a head as the document structure: a dict with every key of `DOCUMENT_KEYS`.

    A tensor is the pooled vector alone. A dict needs `"token_ids"` `(B, T)`
    and may hold `"pooled"` `(B, d_h)`, `"token_states"` `(B, T, d_t)`,
    `"token_mask"` `(B, T)` (default: the ids that are not 0) and
    `"features"` `(B, F)` (the wide path's tf-idf, dense or sparse); absent
    keys are None.
    """
    if not isinstance(inputs, dict):
        return {"pooled": inputs, "token_ids": None, "token_mask": None, "token_states": None, "features": None}
    unknown = sorted(set(inputs) - set(DOCUMENT_KEYS))
    if unknown:
        raise ValueError(f"A document structure has the keys {list(DOCUMENT_KEYS)}. Received: keys {sorted(inputs)}")
    parts = {key: inputs.get(key) for key in DOCUMENT_KEYS}
    ids = parts["token_ids"]
    if ids is None or len(ids.shape) not in (2, 3):
        raise ValueError(
            "A head that reads tokens needs `token_ids` of shape (B, T) or (B, K, T) in its input dict. "
            f"Received: token_ids with shape {None if ids is None else tuple(ids.shape)}"
        )
    if parts["token_mask"] is None:
        parts["token_mask"] = ops.not_equal(ids, 0)
    return parts


def document_batch_shape(inputs):
    """The leading (batch, or batch and time) shape of a head's input: the pooled vector's without its last axis."""
    if isinstance(inputs, dict):
        pooled = inputs.get("pooled")
        return tuple(pooled.shape[:-1]) if pooled is not None else tuple(inputs["token_ids"].shape[:1])
    return tuple(inputs.shape[:-1])


@keras.saving.register_keras_serializable(package="keras_labelemb")
class LabelHead(keras.layers.Layer):
    """Base layer of the heads that score labels from their descriptions.

    A label head maps document (or time-step) vectors `h` `(B, d_h)` or
    `(B, T, d_h)` to one logit per label of a *label set*. The label set is
    data, not parameters: the `(L, Lw)` token ids of the label descriptions
    (0 = padding), read through the word `embedding` shared with the documents
    and turned into label embeddings `E` `(L, d)` by a pluggable
    `label_encoder` (default: the mean of the word vectors). Subclasses keep
    only their equation, `compute_logits(h, E, label_indices, training)`.

    Heads that read the document's words (`reads_tokens = True`, a class
    attribute: lexical match, word interaction, hybrid) receive the document
    as a dict instead of `h`: `{"pooled": h, "token_ids": (B, T),
    "token_mask": (B, T), "token_states": (B, T, d_t)}` (`DOCUMENT_KEYS`;
    only `token_ids` is required, the mask defaults to ids != 0). The
    builders wire it from any encoder; `LabelClassifier.from_model` cuts a
    model there and its encoder then outputs that dict. A head that reads the document's
    tf-idf features (`reads_features = True`: `WideHead`, the wide path of
    a wide + deep model) receives them, `(B, F)`, instead of `h`.

    What every label head offers, the same way:

    - `set_labels(label_ids)`: replace the label set (zero-shot: labels never
      seen in training are scored from their descriptions). On a model that
      has already been compiled or has predicted, use
      `keras_labelemb.models.set_labels(model, label_ids)`, which also
      rebuilds the model's compiled functions (they captured the old set).
    - `label_ids` / `num_labels`: the current label set.
    - `embed_labels(label_ids=None)`: `E` of the stored (or given) label set.
    - call-time labels: `head(h, label_ids=...)` or
      `head(h, label_embeddings=...)` score another label set for one call,
      checked like the constructor's.
    - `score_subset(h, label_indices, training=None)`: logits of the labels at
      positions `label_indices` `(C,)` of the stored set only (sampled
      training: the cost grows with `C`, not with `L`).
    - `LabelClassifier(encoder, head, ...)` holds a head and its encoder;
      `LabelClassifier.from_model(model)` cuts a model you built at its head
      once. Sampled training, chunked top-k scoring, the label index and
      export all take the head and encoder from the task.
    - model parallelism over the labels: under a `keras.distribution`
      (JAX), the head gives its label-side tensors (`LABEL_AXIS_TENSORS`:
      `E` `(L, d)` and the logits `(..., L)`) the layouts its `LayoutMap`
      holds for `"<head path>/<name>"` (XLA lays out what lies between them
      alike: the description word vectors, `E U`), and
      `label_axis_variables()` names its weights with one entry per label;
      `keras_labelemb.distribution.label_sharding_layout_map(model)` writes
      both into a `LayoutMap` that shards them along the label axis.

    What a head author writes (`CosineHead` is a whole head in one file):
    `compute_logits` (the equation) and `build` (its weights, then
    `build_label_side()`); optionally `embed_label_ids` (a label side other
    than `E`), `query_vectors` / `label_vectors_of` with
    `scores_are_inner_products = True` (the label index serves it),
    `label_axis_variables` (per-label weights to shard),
    `shift_and_scale_weights` (what a standardising hybrid freezes),
    `held_layers` / `held_label_sets` (more layers or label sets held), and
    the capability attributes below (`reads_tokens`, `reads_features`,
    `has_output_bias`, ...), declared on the class. Everything else of the
    base is the behaviour above, the same for every head.

    Names, the same across the package: `label_ids` are always token ids of
    label descriptions `(L, Lw)`; positions in a label set are
    `label_indices`; `Lw` is the `description_length` of
    `TextVectorizer.encode_labels`, which maps text to description ids, and
    a head's `embed_labels` maps those ids to label embeddings; the
    label-side width of a head is its `joint_dim`.

    The label set is a `LabelSet` the head holds (`head.label_set`): the
    ids, their checks, the asset they are saved as. Heads holding more sets
    (a hybrid's seen labels, a multilingual GILE head's languages) list them
    in `held_label_sets()`; heads that read no descriptions
    (`reads_descriptions = False`: `LinearHead`, `WideHead`) hold none that
    can be replaced.

    Saving: the label set is kept out of `get_config()` (a config stays a few
    KB at any label count) and saved as the layer's asset (`label_ids.npy`) in
    `.keras` files, so a round trip keeps it exactly. A layer rebuilt from its
    config alone (`from_config`, `keras.models.clone_model`) has the label
    *count* but no label set until `set_labels` or `load_assets`.

    Args:
        embedding: the `keras.layers.Embedding` shared with the documents.
        label_ids: `(L, Lw)` int token ids of the label descriptions.
        label_encoder: layer mapping `(L, Lw, d)` + mask to `(L, d)`. Default
            `LabelEncoder()`, made when the head is built (a `HybridHead`
            gives its components one to share).
        num_labels: the label count when no `label_ids` are given (a layer
            restored from its config; heads with per-label parameters).
        label_dim: `d` of label embeddings passed to `call` when there is no
            `embedding`.
    """

    # Whether the head scores labels from their descriptions (False: one weight vector per label, no label set
    # to replace).
    reads_descriptions = True
    # Whether the head encodes each description to one vector `E` with its `label_encoder` (the base
    # `embed_label_ids`: GILE, DRILL, the cosine head). Heads that read the description words themselves
    # (lexical, interaction, sentence), or no descriptions, take no label encoder: a given one is an error.
    encodes_descriptions = False
    # Whether the head takes an output-bias start (`bias_initializer`): presets start it at the label prior.
    has_output_bias = True
    # Whether the head reads the document's tokens (its input is the document dict) or only the pooled `h`.
    reads_tokens = False
    # Whether the head reads the document's sparse features (`"features"`, the wide path's tf-idf) instead of `h`.
    reads_features = False
    # Whether the head's shared embedding is a `SentenceEncoder` (it reads sentence vectors, not word vectors):
    # `sentence_classifier` checks it (a head that looks word vectors up cannot read labels through one).
    reads_sentence_vectors = False
    # Whether a label's score depends on the other labels scored with it (a hybrid that standardises over the
    # labels): chunked top-k then scores the whole label set at once.
    scores_depend_on_label_set = False
    # Whether the logits are inner products `query_vectors(h) @ label_vectors().T` (bias folded in as one more
    # coordinate), so that maximum inner product search can find the top labels (`LabelIndex`).
    scores_are_inner_products = False
    registered_name = None  # set by `@register_head`
    # The constructor argument `LabelHeadHyperModel` searches for this head (None: nothing), beside its constructor.
    searched_option = None

    def __init__(self, embedding=None, label_ids=None, label_encoder=None, num_labels=None, label_dim=None, **kwargs):
        super().__init__(**kwargs)
        if embedding is not None and not (hasattr(embedding, "input_dim") and hasattr(embedding, "output_dim")):
            raise ValueError(
                "`embedding` must be a keras.layers.Embedding (or a layer with `input_dim`, `output_dim` and "
                f"`embeddings`). Received: embedding={embedding!r}"
            )
        self.embedding = embedding
        if label_encoder is not None and not self.encodes_descriptions:
            raise ValueError(
                f"{type(self).__name__} does not encode each description to one vector (`encodes_descriptions` is "
                f"False): it takes no `label_encoder`. Received: label_encoder={label_encoder!r:.100}"
            )
        # The default (the mean of the word vectors) is made when the head is built, not here, so that a
        # `HybridHead` can give its description heads one encoder to share (`HybridHead(label_encoder=...)`)
        # without leaving an unused default tracked in each.
        self.label_encoder = label_encoder
        self._given_label_encoder = label_encoder is not None  # else the default: not written to the config
        self.label_dim = check_positive_int("label_dim", label_dim, allow_none=True)
        self._num_labels = check_positive_int("num_labels", num_labels, allow_none=True)
        self.label_set = LabelSet("label_ids", restore=self.set_labels)
        if label_ids is not None:
            if embedding is None:
                raise ValueError(
                    "`label_ids` are token ids read through the shared word `embedding`: pass `embedding`. "
                    "Received: embedding=None"
                )
            self.set_labels(label_ids)

    def build_label_side(self):
        """Builds the shared embedding and the label encoder; every head's `build` calls it.

        A head scores without tracing its `call` symbolically (`compute_output_spec`), so nothing else builds
        them, and one unbuilt sublayer makes Keras' JAX `predict` run the whole model eagerly first, op by op.
        """
        if self.embedding is not None and not self.embedding.built:
            self.embedding.build((None,))
        if self.encodes_descriptions and self.label_encoder is None:
            self.label_encoder = LabelEncoder(dtype=self.dtype_policy)
        if self.label_encoder is not None and not self.label_encoder.built:
            width = self.embedding.output_dim if self.embedding is not None else self.label_dim
            self.label_encoder.build((None, None, width))

    def shift_and_scale_weights(self):
        """The weights that move all of a document's logits alike: a positive scale, a bias shared by the labels.

        A `HybridHead(standardize=True)` freezes them: z-scoring over the labels cancels them, so their
        gradients are rounding noise, which Adam's normalised steps turn into full-size moves (a scale can
        cross 0 and flip the component's sign). Default: none (subclasses name theirs).
        """
        return []

    def held_layers(self):
        """The layers the head holds beside its own weights, all built by its `build()` (subclasses add theirs)."""
        return [layer for layer in (self.embedding, self.label_encoder) if layer is not None]

    # -- the label set ------------------------------------------------------------
    @property
    def label_ids(self):
        """The `(L, Lw)` int32 token ids of the current label set, or None."""
        return self.label_set.ids

    @property
    def num_labels(self):
        """The number of labels in the current label set (None when unknown)."""
        return self.label_set.count if self.label_set.ids is not None else self._num_labels

    @property
    def vocabulary_size(self):
        """The rows of the shared word embedding (None without one): label ids must lie below it."""
        return None if self.embedding is None else int(self.embedding.input_dim)

    @property
    def has_per_label_parameters(self):
        """True when some weight belongs to each label (the label count is then fixed once built)."""
        return False

    @property
    def scores_label_sets(self):
        """True when the head can score label sets other than the stored one (call-time labels, zero-shot)."""
        return not self.has_per_label_parameters

    def set_labels(self, label_ids):
        """Replaces the label set by the `(L, Lw)` token ids of label descriptions.

        Any number of labels, unless the head has per-label parameters: then
        only as many labels as it was built for (the same labels re-described).
        """
        self._require_descriptions("label_ids")
        if self.vocabulary_size is None:
            raise ValueError(
                "This head reads no label descriptions (no shared `embedding`). "
                f"Received: label_ids with shape {np.shape(label_ids)}"
            )
        ids = self.label_set.set(label_ids, self.vocabulary_size, check=self._check_label_count)
        self._num_labels = int(ids.shape[0])

    def _require_descriptions(self, what):
        if not self.reads_descriptions:
            raise ValueError(
                f"{type(self).__name__} has one weight vector per label and reads no descriptions: it cannot score "
                f"another label set (a GileHead or DrillHead can). Received: {what}"
            )

    def _check_label_count(self, ids):
        count = ids.shape[0]
        if self.has_per_label_parameters and self.built and self.num_labels is not None and count != self.num_labels:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has per-label parameters for {self.num_labels} labels and "
                f"cannot score another label count. Received: label_ids with {count} labels"
            )

    def _stored_label_ids(self):
        if self.label_set.ids is None:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has no label set: pass `label_ids` to the constructor or "
                "to `set_labels` (a layer restored from its config alone gets them from `load_assets`), or "
                "labels at call time. Received: label_ids=None"
            )
        return self.label_set.ids

    # -- label embeddings ---------------------------------------------------------
    def embed_labels(self, label_ids=None):
        """Label embeddings `E` `(L, d)` of `label_ids` `(L, Lw)` (default: the stored label set)."""
        self._require_descriptions("embed_labels()")
        if label_ids is None:
            return self._stored_label_embeddings()
        label_ids = self._check_call_label_ids(label_ids)
        if self.vocabulary_size is None:
            raise ValueError(
                "`label_ids` are read through the shared `embedding`: this head has none. "
                f"Received: label_ids with shape {tuple(label_ids.shape)}"
            )
        label_ids = ops.convert_to_tensor(label_ids, dtype="int32")
        # Traced ids were not checked: ids outside the vocabulary count as padding (ignored) rather than
        # reading another word's vector (TensorFlow clips) or NaN (JAX).
        inside = ops.logical_and(ops.greater_equal(label_ids, 0), ops.less(label_ids, self.vocabulary_size))
        return self.embed_label_ids(ops.where(inside, label_ids, 0))

    def _stored_label_embeddings(self, label_indices=None):
        """`E` of the stored label set, or of its rows at `label_indices` (only those are encoded)."""
        self._stored_label_ids()  # raises without a label set
        ids = self.label_set.tensor
        if label_indices is not None:
            ids = ops.take(ids, label_indices, axis=0)
        return self.embed_label_ids(ids)

    def embed_label_ids(self, label_ids):
        """The label side `compute_logits` reads, from checked `(L, Lw)` description ids (default `E` `(L, d)`).

        Heads that read the description words themselves (lexical, word
        interaction) return what they need of them instead (a dict); it is
        what `embed_labels` returns and `call(..., label_embeddings=...)`
        takes, so chunked scoring computes it once per label chunk.
        """
        if not self.encodes_descriptions:
            raise NotImplementedError(
                f"{type(self).__name__} reads label descriptions: implement `embed_label_ids`, or declare "
                "`encodes_descriptions = True` to encode each one with a `label_encoder` (the mean of its word vectors)"
            )
        if self.label_encoder is None:  # an unbuilt head encoding descriptions (`embed_labels` before a call)
            self.build_label_side()
        words = self.embedding(label_ids)
        E = self.label_encoder(words, mask=ops.not_equal(label_ids, 0))
        return self.lay_out_label_axis(ops.cast(E, self.compute_dtype), "label_embeddings")

    def _check_call_label_ids(self, label_ids):
        """Call-time token ids: eager values are checked as the constructor's; traced ones by rank only.

        Inside a compiled function the values are unknown: ids outside the
        vocabulary are read as padding, and an empty description encodes to
        the zero vector (a finite score).
        """
        values = known_values(label_ids)
        if values is not None:
            return validate_label_ids(values, self.vocabulary_size)
        if len(label_ids.shape) != 2:
            raise ValueError(
                f"`label_ids` must be (num_labels, description_length) token ids. "
                f"Received: label_ids with shape {tuple(label_ids.shape)}"
            )
        return label_ids

    def _check_call_label_embeddings(self, label_embeddings):
        width = self.embedding.output_dim if self.embedding is not None else self.label_dim
        shape = tuple(label_embeddings.shape)
        if len(shape) != 2 or (width is not None and shape[-1] != width):
            raise ValueError(
                f"`label_embeddings` must be (num_labels, {width}). Received: label_embeddings with shape {shape}"
            )
        return ops.cast(label_embeddings, self.compute_dtype)

    def _label_embeddings_for_call(self, label_ids=None, label_embeddings=None):
        """`(E, from_call)`: the call's labels (checked) or the stored set's embeddings."""
        if label_ids is not None and label_embeddings is not None:
            raise ValueError("Pass at most one of `label_ids` and `label_embeddings`. Received: both")
        if label_embeddings is not None:
            E = self._check_call_label_embeddings(label_embeddings)
        elif label_ids is not None:
            E = self.embed_labels(label_ids)
        else:
            return self._stored_label_embeddings(), False
        if self.has_per_label_parameters and E.shape[0] != self.num_labels:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has per-label parameters for {self.num_labels} labels; "
                f"call-time labels must be as many. Received: {E.shape[0]} labels"
            )
        return E, True

    def _w(self, variable):
        """A weight in the compute dtype (mixed precision keeps variables in float32)."""
        return ops.cast(variable, self.compute_dtype)

    # -- inner-product heads --------------------------------------------------------
    def label_vectors(self, label_indices=None, label_ids=None):
        """The label side `(L, D)` of a head whose logits are inner products (`scores_are_inner_products`).

        `logits == query_vectors(h) @ label_vectors().T` (to rounding), for
        the stored label set, its rows at `label_indices`, or the descriptions
        `label_ids`: what a maximum-inner-product index holds.
        """
        self._require_inner_products()
        if label_ids is not None:
            return self.label_vectors_of(self.embed_labels(label_ids))
        return self.label_vectors_of(self._stored_label_embeddings(label_indices), label_indices)

    def _require_inner_products(self):
        if not self.scores_are_inner_products:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} does not score labels by an inner product of a document vector "
                "and a label vector, so no inner-product index can serve it (GileHead, DrillHead and LinearHead "
                "do). Received: a request for its label vectors"
            )

    # -- scoring --------------------------------------------------------------------
    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None):
        """The head's equation: logits `(..., L)` of `h` against `E` `(L, d)`.

        `label_indices` are the positions of `E`'s rows in the stored label set
        (None: the whole stored set, or call-time labels), for heads with
        per-label parameters.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement compute_logits")

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, dict) and any(isinstance(v, keras.KerasTensor) for v in inputs.values()):
            # A symbolic call on the document dict: `head.input` gives its tensors flattened in key order, so
            # `LabelClassifier.from_model` needs the keys to rebuild it.
            self.document_keys = tuple(sorted(key for key, value in inputs.items() if value is not None))
        return super().__call__(inputs, *args, **kwargs)

    def call(self, inputs, label_ids=None, label_embeddings=None, training=None):
        E, _ = self._label_embeddings_for_call(label_ids, label_embeddings)
        return self.lay_out_label_axis(self.compute_logits(inputs, E, None, training), "logits")

    def score_subset(self, inputs, label_indices, training=None):
        """Logits `(B, C)` (or `(B, T, C)`) of the labels at positions `label_indices` `(C,)` of the label set.

        Only those `C` labels are encoded, so the cost grows with `C`, not
        with `L`: sampled training (`SampledSigmoidLoss`) goes through this.
        Column `c` equals column `label_indices[c]` of `call(inputs)` when
        dropout is off.
        """
        if self.num_labels is None:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has no stored label set to take a subset of. "
                "Received: num_labels=None"
            )
        check_label_indices(label_indices, self.num_labels)
        indices = ops.convert_to_tensor(label_indices, dtype="int32")
        logits = self.compute_logits(inputs, self._stored_label_embeddings(indices), indices, training)
        return self.lay_out_label_axis(logits, "logits")

    # -- model parallelism over the label axis ------------------------------------------
    def label_axis_variables(self):
        """`[(variable, axis)]`: the head's weights with one entry per label along `axis` (none by default).

        Heads whose label set is data (GILE, DRILL over descriptions) have
        none: their label side is computation, laid out by
        `lay_out_label_axis`. `keras_labelemb.distribution.label_sharding_layout_map`
        shards these weights along the label axis.
        """
        return []

    def lay_out_label_axis(self, tensor, name):
        """`tensor` laid out as the active `keras.distribution` says for `"<head path>/<name>"`.

        `name` is one of `LABEL_AXIS_TENSORS`. Without a distribution, or
        without a layout for that path (data parallelism, the TensorFlow
        backend), `tensor` is returned as it is; so is a tensor whose size on
        a sharded axis does not divide evenly over the devices of that mesh
        axis (a chunk of labels, say: JAX places only even shards). A
        `logits` layout is written for `(B, L)`; `(B, T, L)` logits get its
        first and last axes.
        """
        distribution = keras.distribution.distribution()
        if distribution is None:
            return tensor
        layout = distribution.get_tensor_layout(f"{self.path or self.name}/{name}")
        if layout is None:
            return tensor
        rank = len(tensor.shape)
        if len(layout.axes) != rank:
            if name != "logits" or rank < 2 or len(layout.axes) != 2:
                raise ValueError(
                    f"The layout of {self.name!r}'s {name} must have one axis per dimension of {tuple(tensor.shape)}. "
                    f"Received: axes {layout.axes}"
                )
            axes = (layout.axes[0],) + (None,) * (rank - 2) + (layout.axes[-1],)
            layout = keras.distribution.TensorLayout(axes, layout.device_mesh)
        mesh = layout.device_mesh
        for size, axis in zip(tensor.shape, layout.axes):
            if axis is not None and (size is None or size % mesh.shape[mesh.axis_names.index(axis)]):
                return tensor
        return keras.distribution.distribute_tensor(tensor, layout)

    # -- shapes ---------------------------------------------------------------------
    def _call_label_count(self, label_ids=None, label_embeddings=None):
        if label_embeddings is not None:
            return keras.tree.flatten(label_embeddings)[0].shape[0]
        if label_ids is not None:
            return np.shape(label_ids)[0] if not hasattr(label_ids, "shape") else label_ids.shape[0]
        return self.num_labels

    def compute_output_spec(self, inputs, label_ids=None, label_embeddings=None, training=None, **kwargs):
        count = self._call_label_count(label_ids, label_embeddings)
        return keras.KerasTensor(document_batch_shape(inputs) + (count,), dtype=self.compute_dtype)

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, dict):
            pooled = input_shape.get("pooled")
            leading = tuple(pooled[:-1]) if pooled is not None else tuple(input_shape["token_ids"][:1])
        else:
            leading = tuple(input_shape[:-1])
        return leading + (self.num_labels,)

    # -- saving: the label sets are assets, not config --------------------------------
    def held_label_sets(self):
        """The `LabelSet`s the head holds, in the order `load_assets` restores them (subclasses add theirs)."""
        return [self.label_set]

    def save_assets(self, dir_path):
        for label_set in self.held_label_sets():
            label_set.save(dir_path)

    def load_assets(self, dir_path):
        if dir_path is None:  # Keras gives None to a layer that saved no asset (a head without a label set)
            return
        for label_set in self.held_label_sets():
            label_set.load(dir_path)

    def get_config(self):
        config = super().get_config()
        config["num_labels"] = self.num_labels
        # The label side: only what the head reads descriptions with (a per-label head, or a hybrid whose
        # components read them, carries none of it).
        if self.embedding is not None:
            config["embedding"] = keras.saving.serialize_keras_object(self.embedding)
        if self.label_dim is not None:
            config["label_dim"] = self.label_dim
        if self.encodes_descriptions and self._given_label_encoder:  # (the default is made again at build)
            config["label_encoder"] = keras.saving.serialize_keras_object(self.label_encoder)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("embedding", "label_encoder"):
            if config.get(key) is not None:
                config[key] = keras.saving.deserialize_keras_object(config[key])
        return cls(**config)
