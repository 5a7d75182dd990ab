"""Unicode normalisation, lower-casing and number replacement, all in-graph."""

import tensorflow as tf
import tensorflow_text as tf_text

from keras_labelemb.argument_checks import check_bool

NUM_TOKEN = "<num>"
"""The token that replaces every number when `replace_numbers=True`."""

UNICODE_FORMS = ("NFC", "NFD", "NFKC", "NFKD")

# A maximal run of decimal digits (any script), with optional inner `.`/`,`
# groups: "7", "3.14", "1,000,000", "٣". A trailing separator ("5.") is not part
# of the number, so sentence ends survive.
_NUMBER_PATTERN = r"\p{Nd}+(?:[.,]\p{Nd}+)*"


def normalize_text(strings, lowercase=True, unicode_form="NFKC", replace_numbers=True):
    """Normalise UTF-8 strings with TensorFlow ops (runs in graphs and SavedModels).

    The steps, in order:

    1. Unicode normalisation to `unicode_form` with `tensorflow_text.normalize_utf8`
       (NFKC maps compatibility characters: full-width `ＡＢＣ１２３` becomes
       `ABC123`, the ligature `ﬁ` becomes `fi`). `None` skips the step.
    2. Unicode lower-casing (`tf.strings.lower(..., encoding="utf-8")`).
    3. Number replacement: every maximal run of decimal digits (any script),
       with optional inner `.` or `,` groups (`7`, `3.14`, `1,000`), becomes the
       token `NUM_TOKEN` = `"<num>"`. Digits glued to letters are replaced too
       (`covid19` -> `covid<num>`, which `tokenize` splits into `covid`, `<num>`).

    Args:
        strings: a string `tf.Tensor` of any shape, a `tf.RaggedTensor` of
            strings, or anything `tf.convert_to_tensor` turns into one
            (a Python string or list of strings).
        lowercase: bool, default `True`.
        unicode_form: one of `"NFC"`, `"NFD"`, `"NFKC"`, `"NFKD"` or `None`;
            default `"NFKC"`.
        replace_numbers: bool, default `True`.

    Returns:
        A string tensor with the same shape (and raggedness) as `strings`.

    Example:

    >>> normalize_text(["Ｐｒｉｃｅ: 1,250.50 USD"]).numpy()
    array([b'price: <num> usd'], dtype=object)
    """
    check_bool("lowercase", lowercase)
    check_bool("replace_numbers", replace_numbers)
    if unicode_form is not None and unicode_form not in UNICODE_FORMS:
        raise ValueError(
            f"`unicode_form` must be one of {UNICODE_FORMS} or None. Received: unicode_form={unicode_form!r}"
        )
    if isinstance(strings, tf.RaggedTensor):
        return tf.ragged.map_flat_values(
            normalize_text,
            strings,
            lowercase=lowercase,
            unicode_form=unicode_form,
            replace_numbers=replace_numbers,
        )
    x = tf.convert_to_tensor(strings, dtype=tf.string)
    if unicode_form is not None:
        x = tf_text.normalize_utf8(x, unicode_form)
    if lowercase:
        x = tf.strings.lower(x, encoding="utf-8")
    if replace_numbers:
        x = tf.strings.regex_replace(x, _NUMBER_PATTERN, NUM_TOKEN)
    return x
