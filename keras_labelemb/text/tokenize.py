"""Word tokenisation: in-graph regex clean-up, then `tensorflow_text.WhitespaceTokenizer`."""

import tensorflow as tf
import tensorflow_text as tf_text

from keras_labelemb.text.normalize_text import NUM_TOKEN

# The number token contains `<` and `>`, which are punctuation to the tokenizer.
# It is swapped for a private-use character (not a letter, digit or mark, so it
# is never part of a word) while punctuation is removed, then swapped back.
_SENTINEL = "\ue000"
# Han / Hiragana / Katakana: scripts without spaces between words; one token
# per character.
_CJK_CHAR = r"([\p{Han}\p{Hiragana}\p{Katakana}])"
# Everything that is not a letter, digit or combining mark separates tokens.
_NON_WORD = r"[^\p{L}\p{N}\p{M}" + _SENTINEL + r"]+"

_WHITESPACE_TOKENIZER = tf_text.WhitespaceTokenizer()


def _tokenize_dense(strings):
    x = tf.strings.regex_replace(strings, _SENTINEL, "")
    x = tf.strings.regex_replace(x, NUM_TOKEN, " " + _SENTINEL + " ")
    x = tf.strings.regex_replace(x, _CJK_CHAR, r" \1 ")
    x = tf.strings.regex_replace(x, _NON_WORD, " ")
    tokens = _WHITESPACE_TOKENIZER.tokenize(x)
    return tf.ragged.map_flat_values(lambda t: tf.where(tf.equal(t, _SENTINEL), NUM_TOKEN, t), tokens)


def tokenize(strings):
    """Split (already normalised) strings into word tokens; punctuation is dropped.

    A token is a maximal run of letters, digits and combining marks, the number
    token `"<num>"` (see `normalize_text`; it is split from letters it touches),
    or a single Han / Hiragana / Katakana character. Everything else
    (whitespace, punctuation, symbols, `_`) separates tokens and is dropped:
    `"don't stop!"` gives `["don", "t", "stop"]`, and a string of only
    punctuation gives no tokens. Other scripts written without spaces (Thai,
    Lao, Khmer, ...) stay one token per space-separated run. The private-use
    character U+E000 is removed from the input (it is used internally).

    Everything runs in-graph (`tf.strings.regex_replace`, then
    `tensorflow_text.WhitespaceTokenizer`), so it works inside `tf.data`,
    `tf.function` and a SavedModel (which then needs `import tensorflow_text`
    where it is loaded).

    Args:
        strings: a string `tf.Tensor` of any shape or a `tf.RaggedTensor`
            (or a Python string / list of strings).

    Returns:
        A `tf.RaggedTensor` of strings with one more (ragged) dimension than
        `strings` (a 1-D `tf.Tensor` for a scalar string).

    Example:

    >>> tokenize(["hello, world! <num>x"]).to_list()
    [[b'hello', b'world', b'<num>', b'x']]
    """
    if isinstance(strings, tf.RaggedTensor):
        return strings.with_flat_values(_tokenize_dense(strings.flat_values))
    strings = tf.convert_to_tensor(strings, dtype=tf.string)
    if strings.shape.rank == 0:
        return _tokenize_dense(strings[tf.newaxis])[0]
    return _tokenize_dense(strings)
