import pytest
import tensorflow as tf

from keras_labelemb.text import TextVectorizer, TfidfVectorizer
from keras_labelemb.text.string_layer import StringLayer


@pytest.mark.parametrize("cls", [TextVectorizer, TfidfVectorizer])
def test_string_layers_share_the_normalisation_options(cls):
    layer = cls(lowercase=False, unicode_form="NFC", replace_numbers=False)
    assert isinstance(layer, StringLayer) and not layer.supports_jit
    config = layer.get_config()
    assert (config["lowercase"], config["unicode_form"], config["replace_numbers"]) == (False, "NFC", False)
    assert layer.normalize(tf.constant(["Rates 3"])).numpy().tolist() == [b"Rates 3"]
    assert cls().normalize(tf.constant(["Rates 3"])).numpy().tolist() == [b"rates <num>"]


@pytest.mark.parametrize("kwargs, name", [({"unicode_form": "NFX"}, "unicode_form"), ({"lowercase": 1}, "lowercase")])
def test_bad_normalisation_options_raise(kwargs, name):
    with pytest.raises(ValueError, match=name):
        StringLayer(**kwargs)
