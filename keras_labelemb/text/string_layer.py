"""`StringLayer`: the base of the layers that read raw strings in-graph (normalisation options, no XLA)."""

import keras

from keras_labelemb.argument_checks import check_bool
from keras_labelemb.text.normalize_text import UNICODE_FORMS, normalize_text


class StringLayer(keras.layers.Layer):
    """A layer whose input is raw strings, normalised by `normalize_text` with its own options.

    It holds `lowercase`, `unicode_form` and `replace_numbers` (checked, in the
    config) and `normalize(strings)`; string ops cannot be XLA-compiled, and
    strings are neither cast nor converted on the way in.
    """

    def __init__(self, lowercase=True, unicode_form="NFKC", replace_numbers=True, **kwargs):
        super().__init__(**kwargs)
        self.lowercase = check_bool("lowercase", lowercase)
        self.replace_numbers = check_bool("replace_numbers", replace_numbers)
        if unicode_form is not None and unicode_form not in UNICODE_FORMS:
            raise ValueError(
                f"`unicode_form` must be one of {UNICODE_FORMS} or None. Received: unicode_form={unicode_form!r}"
            )
        self.unicode_form = unicode_form
        self.supports_jit = False
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True

    def normalize(self, strings):
        """`normalize_text` of `strings` with this layer's options."""
        return normalize_text(
            strings, lowercase=self.lowercase, unicode_form=self.unicode_form, replace_numbers=self.replace_numbers
        )

    def get_config(self):
        config = super().get_config()
        config.update(lowercase=self.lowercase, unicode_form=self.unicode_form, replace_numbers=self.replace_numbers)
        return config
