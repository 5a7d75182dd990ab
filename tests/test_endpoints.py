"""`add_endpoint` traces a serving function once, and the SavedModel serves it as the function itself."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.export.endpoints import add_endpoint


def _archive_and_counted_function():
    layer = keras.layers.Dense(2, kernel_initializer="ones")
    layer.build((None, 3))
    traces = []

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="features")], autograph=False)
    def serve(features):
        traces.append(1)  # runs only while tracing
        return {"outputs": layer(features)}

    archive = keras.export.ExportArchive()
    archive.track(layer)
    return archive, serve, traces, layer


def test_the_function_is_traced_once_and_served_unchanged(tmp_path):
    archive, serve, traces, layer = _archive_and_counted_function()
    add_endpoint(archive, "serve", serve)
    archive.write_out(str(tmp_path / "served"), verbose=False)
    assert len(traces) == 1, f"traced {len(traces)} times"
    loaded = tf.saved_model.load(str(tmp_path / "served"))
    x = np.arange(6, dtype="float32").reshape(2, 3)
    expected = np.asarray(layer(x))
    np.testing.assert_allclose(loaded.serve(tf.constant(x))["outputs"].numpy(), expected)
    np.testing.assert_allclose(loaded.serve(features=tf.constant(x))["outputs"].numpy(), expected)  # by name
    # The signature keeps the argument's name, and the first endpoint is the default one.
    signature = loaded.signatures["serving_default"]
    np.testing.assert_allclose(signature(features=tf.constant(x))["outputs"].numpy(), expected)


def test_keras_own_add_endpoint_traces_it_more_than_once(tmp_path):
    """Why `add_endpoint` exists: if this starts failing, Keras traces once itself and the helper can go."""
    archive, serve, traces, _ = _archive_and_counted_function()
    archive.add_endpoint("serve", serve)
    archive.write_out(str(tmp_path / "served"), verbose=False)
    assert len(traces) > 1


def test_a_function_without_input_signature_is_refused():
    archive, _, _, _ = _archive_and_counted_function()
    with pytest.raises(ValueError, match="input_signature"):
        add_endpoint(archive, "serve", tf.function(lambda x: x))
