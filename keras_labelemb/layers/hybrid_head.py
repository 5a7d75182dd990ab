"""Hybrid head: a learned weighted sum of other label heads' logits (e.g. GILE + lexical match + word interaction)."""

import contextlib

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_bool, known_values
from keras_labelemb.document_frequency import document_statistics
from keras_labelemb.layers.label_head import LabelHead, document_parts, register_head
from keras_labelemb.layers.label_set import LabelSet
from keras_labelemb.layers.token_label_head import safe_sqrt


def _sharing_scope():
    """Keras' object-sharing scope, unless one is open (`.keras` saving opens one; nesting would reset it).

    Inside it the components' one shared embedding is written once and read back as one layer, so that
    `from_config` (clone, the config round trip) keeps one word table, as `.keras` files do.
    """
    from keras.src.saving import serialization_lib  # Keras has no public handle on this scope

    if serialization_lib.global_state.get_global_attribute("shared_objects/id_to_config_map") is not None:
        return contextlib.nullcontext()
    return serialization_lib.ObjectSharingScope()


def standardize_over_labels(scores):
    """Per document, z-scores over the labels (the last axis) in float32: `(s - mean) / (std + 1e-6)`; ties give 0.

    What `HybridHead(standardize=True)` weighs; the benchmarks' score blends use it too.

    >>> z = standardize_over_labels(np.array([[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]]))
    >>> np.round(ops.convert_to_numpy(z).astype("float64"), 3).tolist()
    [[-1.225, 0.0, 1.225], [0.0, 0.0, 0.0]]
    """
    scores = ops.cast(scores, "float32")
    centred = scores - ops.mean(scores, axis=-1, keepdims=True)
    return centred / (safe_sqrt(ops.mean(ops.square(centred), axis=-1, keepdims=True)) + 1e-6)


def _trimmed(row):
    row = np.asarray(row)
    nonzero = np.flatnonzero(row)
    return tuple(row[: nonzero[-1] + 1].tolist()) if nonzero.size else ()


def label_columns(label_ids, seen_label_ids):
    """`(L,)` int32: for each description row of `label_ids`, the row of `seen_label_ids` with the same words, or -1.

    Equal descriptions are matched in order (the second copy to the second), so the seen set maps to itself.

    >>> label_columns(np.array([[5, 6, 0], [7, 0, 0]]), np.array([[7, 0], [5, 6]])).tolist()
    [1, 0]
    >>> label_columns(np.array([[8, 0]]), np.array([[7, 0]])).tolist()
    [-1]
    >>> label_columns(np.array([[5, 0], [5, 0], [5, 0]]), np.array([[5], [5]])).tolist()
    [0, 1, -1]
    """
    rows = {}
    for index, row in enumerate(seen_label_ids):
        rows.setdefault(_trimmed(row), []).append(index)
    taken = {}
    columns = []
    for row in label_ids:
        key = _trimmed(row)
        position = taken.get(key, 0)
        matches = rows.get(key, [])
        columns.append(matches[position] if position < len(matches) else -1)
        taken[key] = position + 1
    return np.array(columns, "int32")


def label_columns_in_graph(label_ids, seen_label_ids):
    """`label_columns` in `keras.ops`, for descriptions whose values are known only when a compiled function runs
    (a served model's labels sent with a request): the same columns, duplicates matched in order.

    Compares every row with every seen row: `O(L * S * width)` work and memory.
    """
    label_ids = ops.cast(ops.convert_to_tensor(label_ids), "int32")
    seen = ops.cast(ops.convert_to_tensor(seen_label_ids), "int32")
    width, seen_width = label_ids.shape[-1], seen.shape[-1]
    # Zero padding to one width: rows equal after padding are rows equal once their trailing zeros are trimmed.
    if width < seen_width:
        label_ids = ops.pad(label_ids, [[0, 0], [0, seen_width - width]])
    elif seen_width < width:
        seen = ops.pad(seen, [[0, 0], [0, width - seen_width]])
    equal = ops.all(ops.equal(ops.expand_dims(label_ids, 1), ops.expand_dims(seen, 0)), axis=-1)  # (L, S)
    num_seen = seen.shape[0]
    found = ops.any(equal, axis=-1)
    first = ops.argmax(ops.cast(equal, "int32"), axis=-1)
    # The k-th copy of a description (k counted among earlier rows with the same first match) takes the k-th match.
    first_one_hot = ops.cast(ops.logical_and(ops.one_hot(first, num_seen) > 0, ops.expand_dims(found, -1)), "int32")
    earlier = ops.cumsum(first_one_hot, axis=0) - first_one_hot
    copy = ops.sum(earlier * first_one_hot, axis=-1)  # (L,)
    rank = ops.cumsum(ops.cast(equal, "int32"), axis=-1)  # (L, S): 1 at the first match, 2 at the second...
    chosen = ops.logical_and(equal, ops.equal(rank, ops.expand_dims(copy + 1, -1)))
    has = ops.any(chosen, axis=-1)
    column = ops.cast(ops.argmax(ops.cast(chosen, "int32"), axis=-1), "int32")
    return ops.where(has, column, ops.full_like(column, -1))


def _share_label_encoder(components, label_encoder):
    """Gives the components that encode descriptions one label encoder: `label_encoder`, or one default."""
    from keras_labelemb.layers.label_encoder import LabelEncoder

    encoding = [c for c in components if c.encodes_descriptions]
    if label_encoder is not None:
        if not callable(label_encoder):
            raise ValueError(
                "`label_encoder` must be a layer mapping (L, Lw, d) word vectors and a mask to (L, d). "
                f"Received: label_encoder={label_encoder!r:.100}"
            )
        if not encoding:
            raise ValueError(
                "No component encodes descriptions to one vector (GileHead, DrillHead, CosineHead do): a "
                f"`label_encoder` would be read by none. Received: components {[c.name for c in components]}"
            )
        own = [c.name for c in encoding if c.label_encoder is not None and c.label_encoder is not label_encoder]
        if own:
            raise ValueError(
                f"Components {own} already hold their own label encoder: give the encoder once, to the hybrid or "
                "to the components. Received: label_encoder given to both"
            )
    defaults = [c for c in encoding if c.label_encoder is None]
    if label_encoder is None and len(defaults) > 1:
        label_encoder = LabelEncoder(dtype=defaults[0].dtype_policy)  # one default for all of them
    if label_encoder is not None:
        for component in defaults:
            component.label_encoder = label_encoder
            component._given_label_encoder = True  # written to its config, marked shared by the hybrid's


@register_head("hybrid")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class HybridHead(LabelHead):
    """Scores labels by a learned weighted sum of several label heads' logits.

        logits = sum_i a_i * logits_i + b
        with standardize=True:  logits = sum_i a_i * z(logits_i) + b,
            z = per document, (logits - mean) / std over the labels scored

    Each component is a `LabelHead`: heads that read the document's tokens
    (`LexicalMatchHead`, `WordInteractionHead`) get the document dict, heads
    that read features (`WideHead`) its `"features"`, the others its
    `"pooled"` vector; all score the hybrid's label set from its
    descriptions. `component_logits` returns every component's logits by
    name, for analysis.

    A component with per-label parameters (a `LinearHead`, say) knows only
    the labels it was built for, the `seen_label_ids` (default: the
    constructor's `label_ids`). It scores the labels of any later label set
    whose description equals a seen label's, and drops out (adds 0) for the
    others: zero-shot labels, and call-time labels inside a compiled
    function, are scored by the description-reading components alone. So
    the hybrid itself scores any label set (`set_labels`, call-time labels,
    serving with labels sent at request time).

    `standardize` puts components on one scale before they are weighed:
    tf-idf cosines tie at 0 for most labels while word-vector cosines order
    the whole list, and their z-scores add up to a ranking better than
    either (the untrained fusion: `HybridHead([LexicalMatchHead(e),
    EmbeddingMatchHead(e)], standardize=True)` with `a` = 1; the word-vector
    side leaves out the unknown word). A label's score
    then depends on the labels scored with it, so `score_subset` (sampled
    training) standardises over the subset, chunked top-k scores the whole
    label set at once (`scores_depend_on_label_set`), and one label alone
    scores `b`. A dropped per-label component adds 0 before standardising,
    so after it the unseen labels get that component's z-score of 0 (the
    mean of the others). The components' own scale and shared bias
    (`shift_and_scale_weights`) cancel in the z-scores: a standardising
    hybrid freezes them when it builds (they stay frozen in the component).

    The hybrid holds the label set; its components are used for their
    equations and weights (their own label sets are not read, except the
    seen set of per-label components). `a` starts at `weight_initializer`
    (ones), `b` at `bias_initializer`.

    Args:
        components: a list of `LabelHead` layers (distinct names).
        label_ids: `(L, Lw)` token ids of the label descriptions.
        seen_label_ids: the label set of the per-label components (default
            `label_ids`).
        standardize: z-score each component's logits over the labels (per
            document) before weighing them. Default False. The z-scores
            cancel each component's own scale and shared bias, so these are
            kept fixed (not trainable, also through `model.trainable =
            True`); a component shared with another model is fixed there too.
        weight_initializer: initial `a`. Default ones.
        bias_initializer: initial `b`. Default zeros.
        per_label_dropout: in training, the probability that a label's
            per-label components drop out for a step, as they do for a label
            never seen (one draw per label and step). With it the hybrid
            learns `unseen_offset`, a score added to every label scored
            without its per-label components, so that new labels, scored from
            descriptions alone, land on the seen labels' scale (generalized
            zero-shot: one ranking over seen and new labels). Default 0 (no
            offset weight). Needs a per-label and a description component.
        label_encoder: the layer that encodes each description for every
            component that encodes descriptions to one vector (GILE, DRILL,
            cosine), given once here. Default: one `LabelEncoder` (the mean
            of the word vectors) shared by them. A component given its own
            encoder keeps it (then do not give one here as well).

    Example:

    >>> import numpy as np, keras
    >>> from keras_labelemb.layers import GileHead, LexicalMatchHead
    >>> embedding = keras.layers.Embedding(30, 8, mask_zero=True)
    >>> labels = np.array([[4, 5], [6, 0]])
    >>> components = [GileHead(embedding, joint_dim=4, name="gile"), LexicalMatchHead(embedding, name="lexical")]
    >>> head = HybridHead(components, label_ids=labels)
    >>> document = {"pooled": np.ones((2, 8), "float32"), "token_ids": np.array([[4, 9, 0], [6, 6, 0]])}
    >>> tuple(head(document).shape), sorted(head.component_logits(document))
    ((2, 2), ['gile', 'lexical'])

    Components that all have per-label weights (a linear deep head beside
    the wide path) make a hybrid without descriptions, for `num_labels`
    labels: it scores only those, as a `LinearHead` does.
    """

    reads_tokens = True

    def __init__(
        self,
        components,
        label_ids=None,
        seen_label_ids=None,
        weight_initializer="ones",
        bias_initializer="zeros",
        standardize=False,
        num_labels=None,
        label_encoder=None,
        per_label_dropout=0.0,
        **kwargs,
    ):
        if not isinstance(components, (list, tuple)) or not components:
            raise ValueError(f"`components` must be a non-empty list of LabelHead layers. Received: {components!r}")
        for component in components:
            if not isinstance(component, LabelHead) or isinstance(component, HybridHead):
                raise ValueError(
                    f"Every component must be a LabelHead other than a HybridHead. Received: {component!r}"
                )
        names = [component.name for component in components]
        if len(set(names)) != len(names):
            raise ValueError(f"Components need distinct names. Received: names {names}")
        self.components = list(components)
        _share_label_encoder(self.components, label_encoder)
        self.seen_label_set = LabelSet("seen_label_ids", restore=self.set_seen_labels)
        self._columns = None
        super().__init__(num_labels=num_labels, **kwargs)
        self.weight_initializer = keras.initializers.get(weight_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.standardize = check_bool("standardize", standardize)
        sizes = {c.name: c.vocabulary_size for c in self.components if c.vocabulary_size is not None}
        if len(set(sizes.values())) > 1:
            raise ValueError(f"The components read different vocabularies. Received: vocabulary sizes {sizes}")
        if self.vocabulary_size is None and (self._description_components() or self.num_labels is None):
            raise ValueError(
                "A HybridHead scores labels from descriptions: at least one component needs the shared embedding "
                "(or a vocabulary), unless every component has per-label weights and `num_labels` is given. "
                f"Received: components {names}, num_labels={num_labels!r}"
            )
        if isinstance(per_label_dropout, bool) or not isinstance(per_label_dropout, (int, float)):
            raise ValueError(f"`per_label_dropout` must be a number in [0, 1). Received: {per_label_dropout!r}")
        if not 0.0 <= per_label_dropout < 1.0:
            raise ValueError(f"`per_label_dropout` must be in [0, 1). Received: per_label_dropout={per_label_dropout}")
        if per_label_dropout and not (self.per_label_components and self._description_components()):
            raise ValueError(
                "`per_label_dropout` drops per-label components so that description components score those labels: "
                f"the hybrid needs both kinds. Received: components {names}, per_label_dropout={per_label_dropout}"
            )
        self.per_label_dropout = float(per_label_dropout)
        if seen_label_ids is None and label_ids is not None and self.per_label_components:
            seen_label_ids = label_ids  # built for the labels it is constructed with
        if seen_label_ids is not None:
            self.set_seen_labels(seen_label_ids)
        if label_ids is not None:
            self.set_labels(label_ids)

    @property
    def vocabulary_size(self):
        sizes = {c.vocabulary_size for c in self.components if c.vocabulary_size is not None}
        return sizes.pop() if len(sizes) == 1 else None

    @property
    def scores_depend_on_label_set(self):
        return self.standardize

    @property
    def has_per_label_parameters(self):
        # Only per-label components (a wide + deep model with a linear deep head): no label set but its own.
        return not self._description_components()

    @property
    def per_label_components(self):
        return [component for component in self.components if component.has_per_label_parameters]

    # -- the label sets --------------------------------------------------------------
    @property
    def seen_label_ids(self):
        """The label set the per-label components were built for (None without such components)."""
        return self.seen_label_set.ids

    def set_seen_labels(self, label_ids):
        """Sets the label set of the per-label components (their columns, in order)."""

        def check(ids):
            for component in self.per_label_components:
                if component.num_labels is not None and component.num_labels != ids.shape[0]:
                    raise ValueError(
                        f"Component {component.name!r} has per-label parameters for {component.num_labels} labels. "
                        f"Received: seen_label_ids with {ids.shape[0]} labels"
                    )

        self.seen_label_set.set(label_ids, self.vocabulary_size, check=check)
        self._columns = None

    def set_labels(self, label_ids):
        if self.seen_label_ids is None and self.per_label_components:
            # A head rebuilt from its config alone: which labels its per-label weights belong to is not known.
            raise ValueError(
                f"HybridHead {self.name!r} has per-label components but no `seen_label_ids` (a head rebuilt from "
                "its config): call `set_seen_labels` (or `load_assets`) first. Received: label_ids"
            )
        super().set_labels(label_ids)
        self._columns = None
        # The hybrid scores through its own set; components holding one get the same, so none keeps (and saves)
        # a label set the model no longer scores.
        for component in self._description_components():
            if component.label_ids is not None:
                component.set_labels(self.label_ids)

    def columns_of(self, label_ids):
        """`(L,)` int32 columns of the per-label components for description rows `label_ids` (-1: none)."""
        if self.seen_label_ids is None:
            return np.full(len(label_ids), -1, "int32")
        return label_columns(label_ids, self.seen_label_ids)

    def _stored_columns(self):
        if self._columns is None:
            self._columns = self.columns_of(self._stored_label_ids())
        return self._columns

    def held_layers(self):
        return super().held_layers() + [layer for c in self.components for layer in [c, *c.held_layers()]]

    def held_label_sets(self):
        return [self.seen_label_set, self.label_set]  # the seen set first: it gives the label set's columns

    def adapt(self, documents):
        """Sets the idf of every component that has one (`TokenLabelHead.adapt`), counting the documents once."""
        df, n, average_length = document_statistics(documents, self.vocabulary_size)
        for component in self.components:
            if hasattr(component, "set_idf"):
                component.set_idf(df, n, average_length)

    # -- the label side ----------------------------------------------------------------
    def _description_components(self):
        return [component for component in self.components if not component.has_per_label_parameters]

    def embed_label_ids(self, label_ids):
        """`{"components": {name: label side}, "columns": (L,)}`; columns are -1 where the ids are not known."""
        values = known_values(label_ids)
        if values is not None:
            columns = self.columns_of(values)
        elif self.seen_label_ids is not None:  # traced (labels sent to a served model): matched in the graph
            columns = label_columns_in_graph(label_ids, self.seen_label_set.tensor)
        else:
            columns = ops.full((ops.shape(label_ids)[0],), -1, "int32")
        sides = {c.name: c.embed_label_ids(label_ids) for c in self._description_components()}
        return {"components": sides, "columns": ops.convert_to_tensor(columns, "int32")}

    def _stored_label_embeddings(self, label_indices=None):
        if self.has_per_label_parameters:  # no descriptions: the labels are the components' columns
            columns = ops.arange(self.num_labels, dtype="int32")
            if label_indices is not None:
                columns = ops.take(columns, ops.convert_to_tensor(label_indices, "int32"), axis=0)
            return {"components": {}, "columns": columns}
        self._stored_label_ids()  # raises without a label set
        ids = self.label_set.tensor
        columns = ops.convert_to_tensor(self._stored_columns(), "int32")
        if label_indices is not None:
            ids = ops.take(ids, label_indices, axis=0)
            columns = ops.take(columns, label_indices, axis=0)
        sides = {c.name: c.embed_label_ids(ids) for c in self._description_components()}
        return {"components": sides, "columns": columns}

    def _check_call_label_embeddings(self, label_embeddings):
        if not isinstance(label_embeddings, dict) or sorted(label_embeddings) != ["columns", "components"]:
            raise ValueError(
                "HybridHead's label embeddings are the dict `embed_labels` returns (keys 'columns', 'components'). "
                f"Received: label_embeddings of type {type(label_embeddings).__name__}"
            )
        return label_embeddings

    # -- scoring ----------------------------------------------------------------------
    def build(self, input_shape):
        if not isinstance(input_shape, dict) or "token_ids" not in input_shape:
            raise ValueError(
                "HybridHead reads the document dict (`token_ids` and, for components that do not read tokens, "
                f"`pooled`). Received: inputs with shape {input_shape}"
            )
        self.build_label_side()
        for component in self.components:
            if component.built:  # restored from its own build config
                continue
            if component.reads_tokens:
                component.build(input_shape)
                continue
            part = "features" if component.reads_features else "pooled"
            if input_shape.get(part) is None:
                what = "tf-idf features" if part == "features" else "pooled document vector"
                raise ValueError(
                    f"Component {component.name!r} reads the {what}: the input dict needs `{part}`. "
                    f"Received: keys {sorted(input_shape)}"
                )
            component.build(tuple(input_shape[part]))
        self._freeze_shift_and_scale()
        self.weights_by_component = self.add_weight(
            name="component_weights", shape=(len(self.components),), initializer=self.weight_initializer
        )
        self.bias = self.add_weight(name="bias", shape=(), initializer=self.bias_initializer)
        if self.per_label_dropout:
            self.unseen_offset = self.add_weight(name="unseen_offset", shape=(), initializer="zeros")
            self.seed_generator = keras.random.SeedGenerator(seed=None, name="per_label_dropout_seed")

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        keras.layers.Layer.trainable.fset(self, value)  # sets every sublayer's weights, components' included
        self._freeze_shift_and_scale()  # so `model.trainable = True` after a freeze does not thaw them

    def _freeze_shift_and_scale(self):
        """Standardising: the components' scales and shared biases stay put, since z-scores cancel them
        (`LabelHead.shift_and_scale_weights`); trained, their gradients are rounding noise that Adam turns
        into full steps."""
        if not getattr(self, "standardize", False):
            return
        for component in self.components:
            if component.built:
                for weight in component.shift_and_scale_weights():
                    weight.trainable = False

    def _component_input(self, component, inputs):
        if component.reads_tokens:
            return inputs
        return document_parts(inputs)["features" if component.reads_features else "pooled"]

    def _present(self, columns, training):
        """`(L,)` bool: the labels scored with their per-label components (seen, and not dropped this step)."""
        present = columns >= 0
        if training and self.per_label_dropout:
            draw = keras.random.uniform(ops.shape(columns), seed=self.seed_generator)
            present = ops.logical_and(present, draw >= self.per_label_dropout)
        return present

    def _component_logits(self, inputs, label_side, label_indices, training, present=None):
        logits = {}
        for component in self.components:
            document = self._component_input(component, inputs)
            if component.has_per_label_parameters:
                columns = label_side["columns"]
                kept = columns >= 0 if present is None else present
                scores = component.score_subset(document, ops.maximum(columns, 0), training=training)
                scores = ops.where(ops.expand_dims(kept, 0), scores, ops.zeros_like(scores))
            else:
                side = label_side["components"][component.name]
                scores = component.compute_logits(document, side, None, training)
            logits[component.name] = ops.cast(scores, self.compute_dtype)
        return logits

    def component_logits(self, inputs, label_ids=None, training=None):
        """`{component name: logits (B, L)}` of the stored label set (or of `label_ids`)."""
        side, _ = self._label_embeddings_for_call(label_ids, None)
        return self._component_logits(inputs, side, None, training)

    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None):
        weights = ops.cast(self.weights_by_component, self.compute_dtype)
        total = ops.cast(self.bias, self.compute_dtype)
        present = self._present(label_embeddings["columns"], training) if self.per_label_components else None
        parts = self._component_logits(inputs, label_embeddings, label_indices, training, present)
        for i, scores in enumerate(parts.values()):
            if self.standardize:
                scores = ops.cast(standardize_over_labels(scores), self.compute_dtype)
            total = total + weights[i] * scores
        if self.per_label_dropout:
            absent = ops.cast(ops.logical_not(present), self.compute_dtype)
            total = total + ops.cast(self.unseen_offset, self.compute_dtype) * ops.expand_dims(absent, 0)
        return total

    def compute_output_spec(self, inputs, label_ids=None, label_embeddings=None, training=None, **kwargs):
        document_parts(inputs if isinstance(inputs, dict) else {"pooled": inputs})  # a dict with token ids
        return super().compute_output_spec(inputs, label_ids, label_embeddings, training)

    def get_config(self):
        config = super().get_config()
        with _sharing_scope():
            components = [keras.saving.serialize_keras_object(component) for component in self.components]
        # Keras marks the later copies of a shared object only: mark the first too, so it is read back once.
        for key in ("embedding", "label_encoder"):
            held = [id(getattr(c, key, None)) for c in self.components if getattr(c, key, None) is not None]
            for component, serialized in zip(self.components, components):
                layer = getattr(component, key, None)
                if layer is not None and held.count(id(layer)) > 1 and key in serialized["config"]:
                    serialized["config"][key].setdefault("shared_object_id", id(layer))
        config.update(
            components=components,
            weight_initializer=keras.initializers.serialize(self.weight_initializer),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
            standardize=self.standardize,
            per_label_dropout=self.per_label_dropout,
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        with _sharing_scope():
            config["components"] = [keras.saving.deserialize_keras_object(c) for c in config["components"]]
        return cls(**config)
