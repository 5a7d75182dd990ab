"""SavedModel export of a label-embedding classifier that serves raw text."""

import keras
import numpy as np
import tensorflow as tf

from keras_labelemb.export.endpoints import add_endpoint
from keras_labelemb.layers.adaptive_label_decoder import AdaptiveLabelDecoder

# The texts an endpoint takes: `(B,)` strings, or one string `()` or a column `(B, 1)` (`as_batch` reads them).
TEXTS = tf.TensorSpec(None, tf.string, name="texts")
# What a label-sequence decoder serves, by its `output_mode`.
DECODER_OUTPUTS = {"multi_hot": "labels", "sequence": "label_sequence", "logits": "step_logits"}


def export_text_classifier(model, vectorizer, filepath, description_length=None):
    """Exports `model` as a SavedModel that takes raw strings.

    Endpoints (signatures) of the SavedModel:

    - `serve(texts)` (also `serving_default`): `(B,)` strings -> `{"scores": (B, L)}`
      sigmoid scores of the model's current label set. Tokenisation
      (`vectorizer`, tensorflow-text) happens inside the graph.
    - `serve_with_labels(texts, label_descriptions)`: scores the `(L',)` label
      descriptions given with the request, so a served model scores labels added
      after training (heads without per-label parameters: `head.scores_label_sets`).
      An empty description encodes to the zero vector, which gives a finite score;
      a description of only unknown words reads as the unknown word's vector;
      no descriptions give `(B, 0)`.

    - `query_vectors(texts)`: `{"query_vectors": (B, D)}`, the document side
      of a head whose logits are inner products (`head.scores_are_inner_products`):
      what a `LabelIndex` searches with (`IndexedTextClassifier` serves top-k
      labels from raw text that way).

    A model whose head decodes label sets (CNLE's `AdaptiveLabelDecoder`)
    serves what its decoder emits instead of scores: `{"labels": (B, L)}` 0/1
    of the decoded sets (`output_mode="multi_hot"`, the default), or
    `{"label_sequence": (B, T)}` / `{"step_logits": (B, T, L + 1)}` for the
    other output modes; `serve_with_labels` decodes over the labels given
    (no labels: `(B, 0)` empty sets; the other modes raise a clear
    `InvalidArgumentError`).

    Malformed requests give defined outputs: a batch of no texts gives
    `(0, L)`; an empty text, or one of only punctuation, reads as no words
    (an all-padding row); bytes that are not valid UTF-8 fail no request (the
    tokenizer reads the valid words around them). The outputs have the
    shapes above and are finite.

    Loading needs `import tensorflow_text` in the serving process (its ops
    register on import); `load_text_classifier` does that.

    Args:
        model: a Keras model from token ids to label logits whose output layer
            is a `LabelHead` (cut there by `LabelClassifier.from_model`).
        vectorizer: the `TextVectorizer` that produced the model's inputs,
            or, for a model with several inputs (wide + deep), a dict of
            vectorizers by input name: `{"token_ids": TextVectorizer,
            "features": TfidfVectorizer}`.
        filepath: output directory.
        description_length: tokens per label description in
            `serve_with_labels` (default: the head's current `Lw`).

    Example:

    >>> export_text_classifier(model, vectorizer, "/tmp/served")  # doctest: +SKIP
    >>> served = load_text_classifier("/tmp/served")  # doctest: +SKIP
    >>> served.serve(tf.constant(["wheat prices rose"]))["scores"]  # doctest: +SKIP
    """
    vectorizers = vectorizer if isinstance(vectorizer, dict) else None
    if vectorizers is not None:
        names = sorted(model.input) if isinstance(model.input, dict) else None
        if names != sorted(vectorizers) or "token_ids" not in vectorizers:
            raise ValueError(
                "A dict of vectorizers names one per model input, `token_ids` among them. "
                f"Received: vectorizer keys {sorted(vectorizers)} for model inputs {names}"
            )
        vectorizer = vectorizers["token_ids"]

    def vectorize(texts):
        if vectorizers is None:
            return vectorizer.vectorize(texts)
        return {name: layer.vectorize(texts) for name, layer in vectorizers.items()}

    from keras_labelemb.tasks.label_classifier import LabelClassifier

    classifier = LabelClassifier.from_model(model)
    encoder, head = classifier.encoder, classifier.head
    length = description_length or (head.label_ids.shape[1] if head.label_ids is not None else None)
    return write_serving_archive(
        filepath,
        model=model,
        encoder=encoder,
        head=head,
        vectorize=vectorize,
        vectorize_labels=lambda descriptions: vectorizer.vectorize_labels(descriptions, length),
        tracked=list((vectorizers or {"token_ids": vectorizer}).values()),
    )


def as_batch(texts):
    """In-graph: `texts` as `(B,)`: one string is a batch of one, a `(B, 1)` column its `B` texts.

    Any other shape fails the request with an `InvalidArgumentError` that says what is served.
    """
    shape = tf.shape(texts)
    one_column = tf.logical_and(tf.equal(tf.rank(texts), 2), tf.equal(tf.reduce_prod(shape[1:]), 1))
    check = tf.debugging.Assert(
        tf.logical_or(tf.rank(texts) <= 1, one_column),
        ["`texts` must be strings of shape (B,), (B, 1) or one string. Received: texts with shape", shape],
    )
    with tf.control_dependencies([check]):
        return tf.reshape(texts, [-1])


def write_serving_archive(
    filepath, model, encoder, head, vectorize, vectorize_labels, tracked=(), activation="sigmoid", extra=None
):
    """Writes the SavedModel of `export_text_classifier`'s endpoints from its parts.

    `model` maps what `vectorize(texts)` gives to logits, `encoder` to `head`'s
    input; `vectorize_labels(descriptions)` gives description ids;
    `activation` turns logits into served scores (`"sigmoid"` or
    `"softmax"`); `extra` is `{name: tf.Variable}` kept on the archive (a
    task's label names and thresholds), read back as `served.<name>[0]`.
    """
    archive = keras.export.ExportArchive()
    archive.track(model)
    for layer in tracked:
        archive.track(layer)
    for name, variable in (extra or {}).items():
        archive.add_variable_collection(name, [variable])  # loaded as `served.<name>[0]`

    if isinstance(head, AdaptiveLabelDecoder):
        key = DECODER_OUTPUTS[head.output_mode]
        served = lambda outputs: {key: outputs if head.output_mode == "sequence" else tf.cast(outputs, tf.float32)}  # noqa: E731
    else:
        activate = tf.sigmoid if activation == "sigmoid" else tf.nn.softmax
        served = lambda logits: {"scores": activate(tf.cast(logits, tf.float32))}  # noqa: E731

    # autograph=False: the graphs are written with TensorFlow's own control flow, and autograph's conversion of
    # the vectorizer and the model's Python took a quarter of a small model's export (10.6 -> 7.9 s of CPU).
    @tf.function(input_signature=[TEXTS], autograph=False)
    def serve(texts):
        return served(model(vectorize(as_batch(texts)), training=False))

    add_endpoint(archive, "serve", serve)

    if isinstance(encoder, keras.layers.Layer) and (head.scores_are_inner_products or head.scores_label_sets):
        archive.track(encoder)
    if head.scores_are_inner_products and getattr(head, "num_languages", 1) == 1:

        @tf.function(input_signature=[TEXTS], autograph=False)
        def query_vectors(texts):
            vectors = head.query_vectors(encoder(vectorize(as_batch(texts)), training=False))
            return {"query_vectors": tf.cast(vectors, tf.float32)}

        add_endpoint(archive, "query_vectors", query_vectors)

    if head.scores_label_sets and head.label_ids is not None:

        @tf.function(
            input_signature=[TEXTS, tf.TensorSpec([None], tf.string, name="label_descriptions")],
            autograph=False,
        )
        def serve_with_labels(texts, label_descriptions):
            ids = vectorize(as_batch(texts))
            label_ids = vectorize_labels(label_descriptions)
            if not isinstance(head, AdaptiveLabelDecoder):
                return served(head(encoder(ids, training=False), label_ids=label_ids))

            def decode():  # reads the words, whose mask a call with labels needs
                return served(head(encoder(ids, training=False), label_ids=label_ids, mask=tf.not_equal(ids, 0)))

            # The decoder's label BiLSTM fails with an opaque error on no labels: answer that request here.
            count = tf.shape(label_ids)[0]
            if head.output_mode == "multi_hot":  # the set decoded over no labels is empty
                return tf.cond(count > 0, decode, lambda: {key: tf.zeros([tf.shape(ids)[0], 0], tf.float32)})
            message = "serve_with_labels decodes over the label descriptions given: pass at least one. Received: none"
            with tf.control_dependencies([tf.debugging.assert_positive(count, message=message)]):
                return decode()

        add_endpoint(archive, "serve_with_labels", serve_with_labels)
    archive.write_out(filepath, verbose=False)
    return filepath


def load_text_classifier(filepath):
    """Loads a SavedModel written by `export_text_classifier` (imports tensorflow_text first).

    The object's endpoints check what they are sent before TensorFlow binds it:
    `serve(None)`, `serve([1, 2])` or `serve(["a", None])` raise a `ValueError`
    naming the value (TensorFlow's own is "Binding inputs to tf.function
    failed"); a list of `str`, one `str` (a batch of one) or a string tensor
    pass. Every other attribute is the loaded SavedModel's.
    """
    import tensorflow_text  # noqa: F401  (registers the tokenizer ops the graph uses)

    return ServedTextClassifier(tf.saved_model.load(filepath))


class ServedTextClassifier:
    """A loaded text-classifier SavedModel whose endpoints refuse what is not text with a clear error."""

    ENDPOINTS = ("serve", "serve_with_labels", "query_vectors")

    def __init__(self, loaded):
        self.loaded = loaded

    def __getattr__(self, name):
        value = getattr(self.loaded, name)
        if name not in self.ENDPOINTS:
            return value

        def endpoint(*args, **kwargs):
            names = ("texts", "label_descriptions")
            args = [_checked_strings(names[i], a) for i, a in enumerate(args)]
            kwargs = {key: _checked_strings(key, a) for key, a in kwargs.items()}
            return value(*args, **kwargs)

        return endpoint


def _checked_strings(name, value):
    if isinstance(value, (tf.Tensor, tf.RaggedTensor)):
        if value.dtype != tf.string:
            raise ValueError(f"`{name}` must be strings. Received: {name} of dtype {value.dtype.name}")
        return value
    if isinstance(value, (str, bytes)):
        return tf.constant(value)
    if not isinstance(value, (list, tuple)) and not hasattr(value, "__array__"):
        raise ValueError(f"`{name}` must be a list of strings. Received: {name}={value!r:.100}")
    array = np.asarray(value, dtype=object)  # a NumPy column (B, 1) keeps its shape: the graph reads it
    for index, item in enumerate(array.reshape(-1).tolist()):
        if not isinstance(item, (str, bytes)):
            raise ValueError(
                f"`{name}` must hold strings only. Received: {name}[{index}]={item!r:.100} ({type(item).__name__})"
            )
    return tf.constant(array.tolist() if array.size else [], tf.string, shape=array.shape)
