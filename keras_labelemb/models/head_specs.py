"""The head registry: which head a spec names, which arguments it takes, how a builder builds and wires it.

A new head is one file in `layers/` whose class is decorated with
`@register_head(name)`: the options a spec may set are the head's
`spec_options` (part of the `LabelHead` protocol), never the arguments the
builder sets (`BUILDER_ARGUMENTS`).
"""

import keras

from keras_labelemb.layers import DrillHead, GileHead, HybridHead, SentenceEncoder
from keras_labelemb.layers.gile_head import VARIANTS as GILE_VARIANTS
from keras_labelemb.layers.label_head import registered_heads

# The heads by name: `@register_head` on each class is the registry (a new head is its own file).
HEAD_CLASSES = registered_heads()
# Set by the builder (the shared embedding, the label set, the output-bias start, a hybrid's components built
# from their own specs) or belonging to another setting (languages), never by a spec.
BUILDER_ARGUMENTS = frozenset(
    {
        "self",
        "kwargs",
        "embedding",
        "label_ids",
        "num_labels",
        "label_dim",
        "bias_initializer",
        "vocabulary_size",
        "num_languages",
        "language_label_ids",
        "seen_label_ids",
    }
)


HEAD_OPTIONS = {name: cls.spec_options for name, cls in HEAD_CLASSES.items()}
# The token-reading heads a spec builds over the shared embedding, and the layer names they get.
TOKEN_HEAD_NAMES = {
    "lexical": "lexical_match_head",
    "interaction": "word_interaction_head",
    "embedding": "embedding_match_head",
}
HEAD_TYPES = tuple(HEAD_CLASSES)
# Heads with one weight vector per label, built from the label count (they read no descriptions).
PER_LABEL_HEADS = ("linear", "wide")
# Heads over a `SentenceEncoder` (`sentence_classifier`), and the heads that can share one with them: those that
# look up no word vectors in the shared embedding (it gives sentence vectors).
SENTENCE_HEADS = tuple(name for name, cls in HEAD_CLASSES.items() if cls.reads_sentence_vectors)
OVER_SENTENCE_ENCODER = SENTENCE_HEADS + ("lexical", "linear", "hybrid")


def check_no_label_set_beside(head, label_ids, num_labels):
    """A builder given a `LabelHead` layer takes its label set from it: a second one beside it is an error."""
    if label_ids is not None or num_labels is not None:
        raise ValueError(
            "A LabelHead layer brings its own label set: leave `label_ids` and `num_labels` unset. "
            f"Received: label_ids={label_ids is not None}, num_labels={num_labels!r} with head={head.name!r}"
        )


def head_spec(head):
    """A head given as a name or a dict, checked: `{"type": ..., **options}` (see `document_classifier`).

    >>> head_spec("bilinear")
    {'type': 'gile', 'variant': 'bilinear'}
    >>> head_spec({"type": "bilinear", "joint_dim": 8})   # a GILE variant by name
    {'type': 'gile', 'joint_dim': 8, 'variant': 'bilinear'}
    >>> head_spec({"type": "drill", "depth": 4})
    {'type': 'drill', 'depth': 4}
    >>> head_spec({"type": "hybrid", "components": ["gile", "lexical"]})["components"]
    [{'type': 'gile'}, {'type': 'lexical'}]
    """
    if isinstance(head, str):
        if head in GILE_VARIANTS:
            return {"type": "gile"} if head == "gile" else {"type": "gile", "variant": head}
        if head in HEAD_TYPES and head != "hybrid":
            return {"type": head}
        raise ValueError(
            f"`head` must be one of {sorted(set(HEAD_TYPES) - {'hybrid'} | set(GILE_VARIANTS))}, a dict spec or a "
            f"LabelHead. Received: head={head!r}"
        )
    if not isinstance(head, dict):
        raise ValueError(f"`head` must be a name, a dict spec or a LabelHead layer. Received: head={head!r}")
    spec = dict(head)
    kind = spec.setdefault("type", "gile")
    if kind in GILE_VARIANTS and kind != "gile":  # a GILE variant's name given as the type
        if spec.get("variant", kind) != kind:
            raise ValueError(
                f"`head['type']` {kind!r} is a GILE variant, and `head['variant']` says {spec['variant']!r}. "
                f"Received: head={head!r}"
            )
        spec.update(type="gile", variant=kind)
        kind = "gile"
    if kind not in HEAD_TYPES:
        raise ValueError(
            f"`head['type']` must be one of {list(HEAD_TYPES)} (GILE's variants {list(GILE_VARIANTS)} as "
            f"{{'type': 'gile', 'variant': ...}} or by name). Received: head['type']={kind!r}"
        )
    unknown = sorted(set(spec) - {"type"} - set(HEAD_OPTIONS[kind]))
    if unknown:
        raise ValueError(
            f"A {kind!r} head takes {list(HEAD_OPTIONS[kind])}; {unknown} belong to another head or to the builder "
            f"(embedding, label set, output bias). Received: head={head!r}"
        )
    if kind == "hybrid":
        components = spec.get("components")
        if not isinstance(components, (list, tuple)) or not components:
            raise ValueError(
                "A 'hybrid' head needs `components`: a list of head names or specs, e.g. ['gile', 'lexical']. "
                f"Received: components={components!r}"
            )
        spec["components"] = [head_spec(component) for component in components]
        if any(component["type"] == "hybrid" for component in spec["components"]):
            raise ValueError(f"A hybrid's components cannot be hybrids. Received: components={components!r}")
    return spec


def build_head(spec, embedding, document_width, label_ids, num_labels, bias_initializer, name=None):
    """The LabelHead a spec describes, over the builder's shared `embedding`."""
    options = {key: value for key, value in spec.items() if key != "type"}
    kind = spec["type"]
    if kind in PER_LABEL_HEADS:
        if num_labels is None:
            raise ValueError(f"A {kind} head needs `num_labels` (or `label_ids` to count). Received: num_labels=None")
        cls = HEAD_CLASSES[kind]
        return cls(num_labels, bias_initializer=bias_initializer, name=name or f"{kind}_head", **options)
    described = kind != "hybrid" or any(c["type"] not in PER_LABEL_HEADS for c in options["components"])
    if label_ids is None and described:
        raise ValueError(f"A {kind!r} head scores labels from their descriptions: pass `label_ids`. Received: None")
    if kind == "hybrid":
        # The components' biases start at 0: the hybrid's own bias holds the prior, once.
        components = [
            build_head(
                component,
                embedding,
                document_width,
                None if component["type"] in PER_LABEL_HEADS else label_ids,
                num_labels,
                "zeros",
            )
            for component in options.pop("components")
        ]
        return HybridHead(
            components,
            label_ids=label_ids,
            num_labels=num_labels,
            bias_initializer=bias_initializer,
            name=name or "hybrid_head",
            **options,
        )
    if kind == "gile":
        options.setdefault("joint_dim", 500)
        name = name or f"{options.get('variant', 'gile')}_head"
        return GileHead(
            embedding=embedding, label_ids=label_ids, bias_initializer=bias_initializer, name=name, **options
        )
    if kind in SENTENCE_HEADS:
        if not isinstance(embedding, SentenceEncoder):
            raise ValueError(
                f"A {kind!r} head reads descriptions with the documents' SentenceEncoder: build the model with "
                f"`sentence_classifier`. Received: head={kind!r} over a {type(embedding).__name__}"
            )
        return HEAD_CLASSES[kind](
            embedding=embedding,
            label_ids=label_ids,
            bias_initializer=bias_initializer,
            name=name or f"{kind}_head",
            **options,
        )
    if kind == "drill":
        # DRILL as a classifier: tanh (it did better than the language model's sigmoid on Reuters), and
        # g_in = I only when the document vectors are as wide as the word vectors E is made of.
        options.setdefault("activation", "tanh")
        options.setdefault("input_projection", document_width != embedding.output_dim)
        return DrillHead(
            embedding=embedding,
            label_ids=label_ids,
            bias_initializer=bias_initializer,
            name=name or "drill_head",
            **options,
        )
    # Every other head that reads descriptions over the shared embedding (the token heads, CosineHead, ...).
    return HEAD_CLASSES[kind](
        embedding=embedding,
        label_ids=label_ids,
        bias_initializer=bias_initializer,
        name=name or TOKEN_HEAD_NAMES.get(kind, f"{kind}_head"),
        **options,
    )


def apply_head(head, pooled, token_ids=None, token_states=None, features=None):
    """Calls `head` on what it reads: the pooled vector, the features, or the document dict when `head.reads_tokens`.

    `token_ids` `(B, T)` or `(B, K, T)` (sentences are read as one sequence of `K * T` tokens).
    """
    if head.reads_features:
        if features is None:
            raise ValueError(
                f"{type(head).__name__} reads the document's tf-idf features: pass `wide_features` to the builder. "
                "Received: features=None"
            )
        return head(features)
    if not head.reads_tokens:
        return head(pooled)
    if token_ids is None:
        raise ValueError(
            f"{type(head).__name__} reads the document's tokens: this builder has no token ids to give it. "
            "Received: token_ids=None"
        )
    if len(token_ids.shape) == 3:
        # -1: a HAN built without `max_sentences` or `max_sentence_length` has no static token count.
        token_ids = keras.layers.Reshape((-1,), name="flat_token_ids")(token_ids)
        if token_states is not None:
            token_states = keras.layers.Reshape((-1, token_states.shape[-1]), name="flat_token_states")(token_states)
    document = {"pooled": pooled, "token_ids": token_ids}
    if token_states is not None:
        document["token_states"] = token_states
    if features is not None:
        document["features"] = features
    return head(document)
