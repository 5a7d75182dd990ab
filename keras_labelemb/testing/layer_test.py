"""The one helper every public layer's tests call (DESIGN.md, "Conventions")."""

import json
import os
import tempfile

import keras
import numpy as np
from keras import ops

from keras_labelemb.layers.label_head import LabelHead
from keras_labelemb.layers.walk_layers import walk_layers
from keras_labelemb.testing.dtype_policy import dtype_policy


def _as_list(value):
    """Outputs as a list: a tuple's in order, a dict's by sorted key (as `keras.tree` flattens a model's)."""
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _numpy(outputs):
    return [ops.convert_to_numpy(o) for o in _as_list(outputs)]


def _shapes(shape):
    """A shape, a tuple of shapes or a dict of them (by sorted key), as a list of tuples."""
    if isinstance(shape, dict):
        return [tuple(shape[key]) for key in sorted(shape)]
    return [tuple(s) for s in shape] if shape and isinstance(shape[0], (tuple, list)) else [tuple(shape)]


def _assert_close(actual, expected, atol, what):
    for a, e in zip(_numpy(actual), _numpy(expected)):
        np.testing.assert_allclose(a, e, atol=atol, rtol=0, err_msg=what)


def _make(layer_cls, init_kwargs, **extra):
    kwargs = init_kwargs() if callable(init_kwargs) else dict(init_kwargs)
    kwargs.update(extra)
    return layer_cls(**kwargs)


def _call(layer, inputs, mask, call_kwargs, training=None):
    kwargs = dict(call_kwargs or {})
    if mask is not None:
        kwargs["mask"] = mask
    if training is not None:
        kwargs["training"] = training
    return layer(inputs, **kwargs)


def _eager_call(layer, mask, call_kwargs):
    """A function of the input calling `layer` eagerly (TensorFlow and PyTorch; JAX calls a compiled model)."""

    def call(inputs):
        if not layer.built:
            layer.build(_shape(inputs))
        return _call(layer, inputs, mask, call_kwargs)

    return call


def _jitted(function):
    """`function`; under JAX one `jax.jit` of it: op by op, JAX compiles every operation of a layer for its
    shapes and dtypes, about 150 small XLA programs a layer on CPU."""
    if keras.backend.backend() != "jax":
        return function
    import jax

    return jax.jit(function)


def _serialized(layer):
    """The layer's serialized config as JSON, without the ids Keras gives shared objects (they differ per object)."""

    def drop_ids(value):
        if isinstance(value, dict):
            return {k: drop_ids(v) for k, v in value.items() if k != "shared_object_id"}
        return [drop_ids(v) for v in value] if isinstance(value, list) else value

    return json.dumps(drop_ids(keras.saving.serialize_keras_object(layer)), sort_keys=True)


def _dtype(input_data):
    """The Keras dtype of a NumPy input: strings (for a text layer) are `"string"`."""
    return "string" if input_data.dtype.kind in "USO" else str(input_data.dtype)


def _shape(input_data):
    """The shape of the input: a tuple, or a dict of tuples for a structured input (a token-reading head's)."""
    if isinstance(input_data, dict):
        return {key: tuple(value.shape) for key, value in input_data.items()}
    return tuple(input_data.shape)


def _batch_size(input_data):
    return len(next(iter(input_data.values())) if isinstance(input_data, dict) else input_data)


def _symbolic(input_data, batch=True):
    """KerasTensors of the input's shapes and dtypes (a dict of them for a structured input)."""

    def one(value, name=None):
        shape = {"batch_shape": value.shape} if batch else {"shape": value.shape[1:]}
        return keras.Input(**shape, dtype=_dtype(value), name=name)

    if isinstance(input_data, dict):
        return {key: one(value, key) for key, value in input_data.items()}
    return one(input_data)


def _model(layer, input_data, mask, call_kwargs):
    """Wraps the layer in a functional model (mask as a second boolean input)."""
    if isinstance(input_data, dict):  # a structured input (no separate mask: it is one of the entries)
        inputs = _symbolic(input_data, batch=False)
        return keras.Model(inputs, _call(layer, inputs, None, call_kwargs)), input_data
    inputs = keras.Input(shape=input_data.shape[1:], dtype=_dtype(input_data))
    model_inputs = [inputs]
    symbolic_mask = None
    if mask is not None:
        symbolic_mask = keras.Input(shape=mask.shape[1:], dtype="bool")
        model_inputs.append(symbolic_mask)
    outputs = _call(layer, inputs, symbolic_mask, call_kwargs)
    return keras.Model(model_inputs, outputs), [input_data] + ([mask] if mask is not None else [])


def _perturb_masked(input_data, mask, seed):
    """Replaces every masked position of the input with other values."""
    rng = np.random.default_rng(seed)
    keep = mask.reshape(mask.shape + (1,) * (input_data.ndim - mask.ndim))
    if np.issubdtype(input_data.dtype, np.integer):
        noise = rng.integers(1, max(2, int(input_data.max()) + 1), size=input_data.shape)
    else:
        noise = rng.normal(size=input_data.shape) * 10
    return np.where(keep, input_data, noise.astype(input_data.dtype))


def run_layer_test(
    layer_cls,
    init_kwargs,
    input_data,
    expected_output_shape,
    mask=None,
    call_kwargs=None,
    expected_num_trainable_weights=None,
    expected_num_non_trainable_weights=None,
    run_training=True,
    run_mixed_precision=True,
    check_mask_invariance=True,
    frozen_weights=(),
    atol=1e-5,
):
    """Checks a layer the same way for every layer of the library.

    1. builds from shapes and counts weights; `compute_output_shape` is right;
    2. symbolic call (KerasTensors) and a call on arrays give the expected shapes, finite values
       (eager under TensorFlow and PyTorch; under JAX the `predict` of a model holding it, compiled
       with XLA, the way JAX runs it, instead of a compile per operation);
    3. `get_config` is JSON-serializable and `from_config` of it gives a layer of the same config;
    4. a model holding it has every layer a head holds built (`LabelHead.held_layers`),
       predicts what the eager call gives (a graph under TensorFlow, eagerly under PyTorch;
       under JAX step 2 was that prediction), and saved to `.keras` and loaded (`from_config`,
       weights and assets: a label head's label set) computes identically (under JAX its `predict`
       against the original's, the same XLA program: with a JAX compilation cache, as in the suite's
       JAX process, it is not compiled twice; elsewhere called as the layer was);
    5. one training step (`train_on_batch`; compiled with XLA under JAX, eager under TensorFlow
       and PyTorch) changes every trainable weight (gradients reach them) except those named in
       `frozen_weights`, and leaves every weight finite (no NaN gradient, e.g. from a square
       root at 0);
    6. under the `mixed_float16` policy it computes in float16 with float32
       weights, and its outputs in inference and in training mode are finite
       (one compiled call under JAX, eager under TensorFlow and PyTorch);
    7. with a `mask` (include fully masked rows): outputs are finite, and changing
       the input at masked positions changes no output (`check_mask_invariance`).

    Args:
        layer_cls: the layer class.
        init_kwargs: constructor arguments, or a function returning them (use a
            function when they hold layers that each instance needs fresh).
        input_data: a NumPy array, batch first; or a dict of them (the
            document dict of a head that reads tokens: `mask` then stays
            None, a `token_mask` entry being the mask).
        expected_output_shape: output shape, or a tuple (or dict) of shapes for several outputs.
        mask: optional boolean NumPy mask passed as `mask=`.
        call_kwargs: extra call arguments.
    """
    input_data = (
        {k: np.asarray(v) for k, v in input_data.items()} if isinstance(input_data, dict) else np.asarray(input_data)
    )
    expected = _shapes(expected_output_shape)

    # 1. Build from shapes.
    layer = _make(layer_cls, init_kwargs)
    layer.build(_shape(input_data))
    assert layer.built, f"{layer_cls.__name__}.build() did not mark the layer built"
    if expected_num_trainable_weights is not None:
        assert len(layer.trainable_weights) == expected_num_trainable_weights, [w.path for w in layer.trainable_weights]
    if expected_num_non_trainable_weights is not None:
        assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights
    assert _shapes(layer.compute_output_shape(_shape(input_data))) == expected

    # 2. Symbolic and eager calls.
    symbolic_input = _symbolic(input_data)
    symbolic_mask = None if mask is None else keras.Input(batch_shape=mask.shape, dtype="bool")
    symbolic = _call(_make(layer_cls, init_kwargs), symbolic_input, symbolic_mask, call_kwargs)
    assert [tuple(o.shape) for o in _as_list(symbolic)] == expected
    jax = keras.backend.backend() == "jax"
    if jax:
        # Under JAX the model of step 4, compiled with XLA, stands for the call: a `jax.jit` of the call as well
        # was one more XLA program per case computing the same operations (the JAX run: 422 -> 389 compiles).
        model, model_inputs = _model(layer, input_data, mask, call_kwargs)
        model.compile(jit_compile=True)

        def call_layer(data):
            if not isinstance(data, dict):
                data = [data] if mask is None else [data, mask]
            return model.predict(data, verbose=0)
    else:
        call_layer = _eager_call(layer, mask, call_kwargs)
    eager = call_layer(input_data)
    eager_values = _numpy(eager)
    assert [v.shape for v in eager_values] == expected
    for value in eager_values:
        assert np.all(np.isfinite(value)), f"{layer_cls.__name__} produced non-finite outputs"

    # 3. Config round trip: the clone's config is the layer's. (That it also computes the same is step 4's
    # `.keras` round trip, which rebuilds the layer with `from_config`: a call of the clone here was one more
    # XLA compile per case under JAX.)
    clone = layer_cls.from_config(layer.get_config())
    clone.build(_shape(input_data))
    assert _serialized(clone) == _serialized(layer), (
        f"{layer_cls.__name__}.from_config(get_config()) has another config"
    )

    # 4. In a model: compiled prediction equals the eager call; saved and loaded, it computes the same.
    if not jax:
        model, model_inputs = _model(layer, input_data, mask, call_kwargs)
    # A head's held layers (its shared embedding, label encoder, components) are not traced by the symbolic call:
    # one left unbuilt and Keras' JAX `predict` runs the whole model eagerly first, op by op.
    held = [layer for head in walk_layers(model) if isinstance(head, LabelHead) for layer in head.held_layers()]
    unbuilt = [layer.name for layer in held if not layer.built]
    assert not unbuilt, f"{layer_cls.__name__}.build() left sublayers unbuilt: {unbuilt}"
    if jax:
        predicted = eager  # the model's XLA `predict` (step 2)
    else:
        # Under TensorFlow a graph, as its "auto" runs on a CPU: TensorFlow's XLA compiles every layer class's
        # forward pass and gradients in tests/test_xla_training.py, and an XLA compile here was a third of a
        # case's time (the TensorFlow contract file 84 -> 57 s of CPU without it).
        model.compile(jit_compile=False)
        predicted = model.predict(model_inputs, verbose=0)
        _assert_close(predicted, eager, atol, "predict differs from the eager call")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.keras")
        model.save(path)
        # Under JAX `predict` below needs no compiled loss or optimizer: not restoring them skips building an
        # optimizer per case (elsewhere the loaded model is only called).
        loaded = keras.models.load_model(path, compile=not jax)
    if jax:
        # Its `predict`, bit for bit the original's. A loaded model that rebuilds the same layers with the same
        # weights lowers to the same XLA program as the original's `predict`, so a JAX compilation cache (the
        # suite's JAX process has one) runs it without compiling it again; a lost config value or weight makes
        # another program or other values, and the outputs differ.
        _assert_close(loaded.predict(model_inputs, verbose=0), predicted, 0.0, ".keras round trip changed predictions")
    else:
        # Called as the layer itself was above: bit for bit. (A second `predict` cost a trace per case.)
        _assert_close(loaded(model_inputs), eager, 0.0, ".keras round trip changed predictions")

    # 5. One training step (XLA under JAX, eager elsewhere); gradients reach every weight.
    if run_training:
        _check_training_step(layer_cls, init_kwargs, input_data, mask, call_kwargs, frozen_weights)

    # 6. Mixed precision.
    if run_mixed_precision:
        _check_mixed_precision(layer_cls, init_kwargs, input_data, mask, call_kwargs)

    # 7. Masks.
    if mask is not None and check_mask_invariance:
        perturbed = _perturb_masked(input_data, mask, seed=0)
        _assert_close(
            call_layer(perturbed),  # under JAX the `predict` program compiled for `eager`, same shapes
            eager,
            atol,
            "values at masked positions changed the outputs",
        )
    return layer


def _train_one_step(layer, input_data, mask, call_kwargs, jit_compile, run_eagerly=False):
    model, model_inputs = _model(layer, input_data, mask, call_kwargs)
    first_output = _as_list(model.outputs)[0]
    train_model = keras.Model(model.inputs, first_output)
    target = np.random.default_rng(0).normal(size=(_batch_size(input_data),) + tuple(first_output.shape[1:]))
    train_model.compile(
        optimizer=keras.optimizers.Adam(1e-2), loss="mse", jit_compile=jit_compile, run_eagerly=run_eagerly
    )
    loss = float(train_model.train_on_batch(model_inputs, target.astype("float32")))
    assert np.isfinite(loss), f"training loss is not finite: {loss}"


def _check_training_step(layer_cls, init_kwargs, input_data, mask, call_kwargs, frozen_weights):
    layer = _make(layer_cls, init_kwargs)
    layer.build(_shape(input_data))
    initial = {w.path: ops.convert_to_numpy(w).copy() for w in layer.trainable_weights}
    # Under JAX compiled with XLA, as JAX trains; under TensorFlow eager: its XLA compile of the gradients was
    # half of a case's time, the forward pass is compiled with XLA in step 4, and tests/test_xla_training.py
    # trains reference models holding nearly every layer with XLA. PyTorch's torch.compile is not checked here.
    jax = keras.backend.backend() == "jax"
    _train_one_step(layer, input_data, mask, call_kwargs, jit_compile=jax, run_eagerly=not jax)
    not_finite = [w.path for w in layer.weights if not np.all(np.isfinite(ops.convert_to_numpy(w)))]
    assert not not_finite, f"one training step left non-finite weights (a NaN gradient): {not_finite}"
    unchanged = [
        w.path
        for w in layer.trainable_weights
        if np.array_equal(initial[w.path], ops.convert_to_numpy(w))
        and not any(name in w.path for name in frozen_weights)
    ]
    assert not unchanged, f"no gradient reached these weights in one training step: {unchanged}"


def _check_mixed_precision(layer_cls, init_kwargs, input_data, mask, call_kwargs):
    with dtype_policy("mixed_float16"):
        layer = _make(layer_cls, init_kwargs)
        # Both modes in one call: under JAX one XLA program. A float16 training step was checked here before, but
        # its loss scaling skips a step whose gradients overflow, so it showed no more than this forward pass in
        # training mode, at twice the cost (a train step's compile was a third of a case under JAX). Whole models
        # train in float16 with XLA in tests/test_sampled_label_model.py and tests/test_backends.py.
        both = _jitted(lambda inputs: [_call(layer, inputs, mask, call_kwargs, training) for training in (False, True)])
        layer.build(_shape(input_data))
        outputs = [_numpy(one) for one in both(input_data)]
        assert layer.compute_dtype == "float16", layer.compute_dtype
        for mode, values in zip(("inference", "training"), outputs):
            for value in values:
                assert np.all(np.isfinite(value)), f"{layer_cls.__name__} is not finite under mixed_float16 ({mode})"
        assert all(w.dtype == "float32" for w in layer.trainable_weights), "weights must stay float32"
