"""SavedModel export of a word-level language model that serves next-word distributions for raw text."""

import keras
import tensorflow as tf

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.export.endpoints import add_endpoint
from keras_labelemb.export.stateless_language_model import stateless_language_model


def _check_vocabulary(vocabulary, vocabulary_size):
    try:
        if isinstance(vocabulary, (str, bytes)):
            raise TypeError
        words = [w.decode("utf-8") if isinstance(w, bytes) else w for w in vocabulary]
    except TypeError:
        raise ValueError(f"`vocabulary` must be a list of strings. Received: vocabulary={vocabulary!r:.200}") from None
    for index, word in enumerate(words):
        if not isinstance(word, str) or word == "" or len(word.split()) != 1:
            raise ValueError(
                f"`vocabulary` entries must be non-empty strings without whitespace (served texts are split on "
                f"whitespace). Received: vocabulary[{index}]={word!r}"
            )
    if len(set(words)) != len(words):
        repeated = next(w for i, w in enumerate(words) if w in words[:i])
        raise ValueError(f"`vocabulary` entries must be distinct. Received: {repeated!r} more than once")
    if len(words) != vocabulary_size:
        raise ValueError(
            f"`vocabulary` must have one word per output of the model ({vocabulary_size}). Received: {len(words)} words"
        )
    return words


def _check_token(name, token, words, allow_none=False):
    if token is None and allow_none:
        return None
    if token not in words:
        raise ValueError(f"`{name}` must be a word of `vocabulary`. Received: {name}={token!r}")
    return token


def export_language_model(model, vocabulary, filepath, unknown_token="<unk>", start_token=None, max_length=None):
    """Exports a `drill_lm` language model as a SavedModel that takes raw strings.

    Endpoints (signatures) of the SavedModel:

    - `serve(texts)` (also `serving_default`): `(B,)` strings ->
      `{"probabilities": (B, |V|)}`, float32, the softmax over `vocabulary` of
      the word that follows each text's last token. Each text is split on
      ASCII whitespace into tokens matched exactly (no lower-casing: give the
      text as the corpus was tokenised, e.g. PTB's lower-cased words and
      `<unk>`); a token outside `vocabulary`, including bytes that are not
      UTF-8, reads as `unknown_token` (a `tf.lookup` table inside the graph).
    - `vocabulary()`: `{"vocabulary": (|V|,)}` strings, the word of each
      column of `probabilities`.

    Every text is read from zero LSTM state, independently of the other texts
    of the batch and of earlier requests: the served graph runs
    `stateless_language_model(model)` (a copy with `stateful=False` and any
    batch shape), so a stateful model trained with truncated BPTT serves as
    it is. Defined outputs for malformed input: an empty text (or one of only
    whitespace) gives the distribution the model predicts before reading any
    token, from its initial zero state; a batch of no texts gives `(0, |V|)`.

    Loading needs only TensorFlow (`tf.saved_model.load`); no Keras, no
    `keras_labelemb`.

    Args:
        model: a `drill_lm` model (stateful or not), from token ids `(B, T)`
            to logits `(B, T, |V|)`: any functional model whose layers form
            one chain from token ids to logits with a recurrent layer
            (`keras.layers.RNN`) among them.
        vocabulary: the `|V|` words, `vocabulary[i]` the word of id `i`
            (e.g. `LanguageModelingData.vocabulary`).
        filepath: output directory.
        unknown_token: the word unknown tokens read as. Default `"<unk>"`.
        start_token: a word read before every text, or None (default). E.g.
            `"<eos>"` for a PTB model, whose sentences follow an `<eos>` in
            the training stream, so that a text reads as a sentence start; an
            empty text then gives the distribution after `start_token`.
        max_length: keep only the last `max_length` tokens of a text (after
            `start_token`), which bounds the cost of a long request; None
            (default) reads every token.

    Returns:
        `filepath`.

    Example:

    >>> words = ["the", "cat", "sat", "<eos>", "<unk>"]
    >>> model = drill_lm(5, batch_size=2, bptt=3, units=8, num_layers=1)  # doctest: +SKIP
    >>> export_language_model(model, words, "/tmp/lm")  # doctest: +SKIP
    >>> served = tf.saved_model.load("/tmp/lm")  # doctest: +SKIP
    >>> served.serve(tf.constant(["the cat", ""]))["probabilities"].shape  # doctest: +SKIP
    TensorShape([2, 5])
    """
    copy = stateless_language_model(model)
    vocabulary_size = int(copy.outputs[0].shape[-1])
    words = _check_vocabulary(vocabulary, vocabulary_size)
    _check_token("unknown_token", unknown_token, words)
    _check_token("start_token", start_token, words, allow_none=True)
    max_length = check_positive_int("max_length", max_length, allow_none=True)
    recurrent = [layer for layer in copy.layers if isinstance(layer, keras.layers.RNN)]
    if not recurrent:
        raise ValueError(f"`model` must read its tokens with a recurrent layer. Received: model={model!r}")
    # The text's state after its last token, then the rest of the model on that one step: no logits for every step.
    encoder = keras.Model(copy.inputs[0], recurrent[-1].output)
    tail = keras.Model(recurrent[-1].output, copy.outputs[0])

    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(words), tf.range(vocabulary_size, dtype=tf.int64)),
        default_value=words.index(unknown_token),
    )
    archive = keras.export.ExportArchive()
    archive.track(copy)
    archive.track(table)

    def distributions(texts):
        tokens = tf.strings.split(texts)
        if start_token is not None:
            start = tf.RaggedTensor.from_tensor(tf.fill([tf.shape(texts)[0], 1], start_token))
            tokens = tf.concat([start, tokens], axis=1)
        if max_length is not None:
            tokens = tokens[:, -max_length:]
        ids = tf.ragged.map_flat_values(table.lookup, tokens)
        lengths = ids.row_lengths()
        # Right padding is never read: the recurrent layers run forwards and the state is taken at the last token.
        # One extra step gives every text at least one, so an empty one still has a (zero, below) state to take.
        padded = tf.pad(tf.cast(ids.to_tensor(default_value=0), copy.inputs[0].dtype), [[0, 0], [0, 1]])
        states = encoder(padded, training=False)
        last = tf.gather(states, tf.maximum(lengths - 1, 0), batch_dims=1)
        last = tf.where((lengths > 0)[:, None], last, tf.zeros_like(last))  # an empty text: the initial state
        logits = tail(last[:, None, :], training=False)[:, 0, :]
        return tf.nn.softmax(tf.cast(logits, tf.float32))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="texts")], autograph=False)
    def serve(texts):
        # TensorFlow's LSTM kernels fail on a batch of no rows: answer it without running the model.
        probabilities = tf.cond(
            tf.size(texts) > 0, lambda: distributions(texts), lambda: tf.zeros([0, vocabulary_size], tf.float32)
        )
        return {"probabilities": tf.ensure_shape(probabilities, [None, vocabulary_size])}

    @tf.function(input_signature=[], autograph=False)
    def vocabulary_endpoint():
        return {"vocabulary": tf.constant(words)}

    add_endpoint(archive, "serve", serve)
    add_endpoint(archive, "vocabulary", vocabulary_endpoint)
    archive.write_out(filepath, verbose=False)
    return filepath
