"""walk_layers visits nested models in graph order."""

import keras

from keras_labelemb.layers.walk_layers import walk_layers


def test_descends_into_nested_models_in_order():
    inner = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="a"), keras.layers.Dense(2, name="b")])
    outer = keras.Sequential([keras.Input((3,)), inner, keras.layers.Dense(1, name="c")])
    names = [layer.name for layer in walk_layers(outer)]
    assert names == [inner.name, "a", "b", "c"]


def test_functional_model_with_shared_input():
    x = keras.Input((4,))
    y = keras.layers.Dense(3, name="first")(x)
    model = keras.Model(x, keras.layers.Dense(1, name="second")(y))
    assert [layer.name for layer in walk_layers(model)][1:] == ["first", "second"]
