"""SavedModel export of a label-embedding classifier that serves raw text."""

import keras
import tensorflow as tf

from keras_labelemb.models.label_head_access import split_at_head


def export_text_classifier(model, vectorizer, filepath, description_length=None):
    """Exports `model` as a SavedModel that takes raw strings.

    Endpoints (signatures) of the SavedModel:

    - `serve(texts)` (also `serving_default`): `(B,)` strings -> `{"scores": (B, L)}`
      sigmoid scores of the model's current label set. Tokenisation
      (`vectorizer`, tensorflow-text) happens inside the graph.
    - `serve_with_labels(texts, label_descriptions)`: scores the `(L',)` label
      descriptions given with the request, so a served model scores labels added
      after training (heads without per-label parameters: `head.scores_label_sets`).
      An empty description encodes to the zero vector, which gives a finite score.

    Loading needs `import tensorflow_text` in the serving process (its ops
    register on import); `load_text_classifier` does that.

    Args:
        model: a Keras model from token ids to label logits whose output layer
            is a `LabelHead` (see `split_at_head`).
        vectorizer: the `TextVectorizer` that produced the model's inputs.
        filepath: output directory.
        description_length: tokens per label description in
            `serve_with_labels` (default: the head's current `Lw`).

    Example:

    >>> export_text_classifier(model, vectorizer, "/tmp/served")  # doctest: +SKIP
    >>> served = load_text_classifier("/tmp/served")  # doctest: +SKIP
    >>> served.serve(tf.constant(["wheat prices rose"]))["scores"]  # doctest: +SKIP
    """
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.track(vectorizer)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="texts")])
    def serve(texts):
        logits = model(vectorizer.vectorize(texts), training=False)
        return {"scores": tf.sigmoid(tf.cast(logits, tf.float32))}

    archive.add_endpoint("serve", serve)

    encoder, head = split_at_head(model)
    if head.scores_label_sets and head.label_ids is not None:
        archive.track(encoder)
        length = description_length or head.label_ids.shape[1]

        @tf.function(
            input_signature=[
                tf.TensorSpec([None], tf.string, name="texts"),
                tf.TensorSpec([None], tf.string, name="label_descriptions"),
            ]
        )
        def serve_with_labels(texts, label_descriptions):
            document = encoder(vectorizer.vectorize(texts), training=False)
            label_ids = vectorizer.vectorize_labels(label_descriptions, length)
            logits = head(document, label_ids=label_ids)
            return {"scores": tf.sigmoid(tf.cast(logits, tf.float32))}

        archive.add_endpoint("serve_with_labels", serve_with_labels)
    archive.write_out(filepath, verbose=False)
    return filepath


def load_text_classifier(filepath):
    """Loads a SavedModel written by `export_text_classifier` (imports tensorflow_text first)."""
    import tensorflow_text  # noqa: F401  (registers the tokenizer ops the graph uses)

    return tf.saved_model.load(filepath)
