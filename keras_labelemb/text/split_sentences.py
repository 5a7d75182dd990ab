"""Sentence splitting for hierarchical (document -> sentences -> words) input."""

import tensorflow as tf
import tensorflow_text as tf_text

# A sentence ends at a run of `.`, `!` or `?` followed by whitespace (or a line
# break), at an ideographic full stop `。`, and at every line break.
_SENTENCE_DELIMITER_PATTERN = r"[.!?]+\s+|。\s*|\s*\n\s*"


def split_sentences(strings):
    """Split documents into sentences with in-graph regex ops.

    A sentence boundary is a run of `.`, `!` or `?` followed by whitespace, an
    ideographic full stop `。`, or a line break. The boundary characters are
    dropped (a final `.` at the very end of a document is kept on the last
    sentence; the word tokenizer drops it), each sentence is stripped of
    surrounding whitespace, and empty sentences are removed. Abbreviations such
    as "Mr. Smith" are split: the rule is deliberately simple.

    Args:
        strings: a string `tf.Tensor` of any shape or a `tf.RaggedTensor`
            (or a Python string / list of strings).

    Returns:
        A `tf.RaggedTensor` of strings with one more (ragged) dimension than
        `strings` (a 1-D `tf.Tensor` for a scalar string); an empty document
        gives an empty row.

    Example:

    >>> split_sentences(["One. Two!\\nThree"]).to_list()
    [[b'One', b'Two', b'Three']]
    """
    if not isinstance(strings, tf.RaggedTensor):
        strings = tf.convert_to_tensor(strings, dtype=tf.string)
        if strings.shape.rank == 0:
            return split_sentences(strings[tf.newaxis])[0]
    sentences = tf_text.regex_split(strings, _SENTENCE_DELIMITER_PATTERN)
    sentences = tf.ragged.map_flat_values(tf.strings.strip, sentences)
    non_empty = tf.ragged.map_flat_values(lambda s: tf.strings.length(s) > 0, sentences)
    return tf.ragged.boolean_mask(sentences, non_empty)
