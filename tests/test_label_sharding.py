"""`label_sharding_layout_map`: the label side of a head split over devices, with the outputs unchanged.

The keys of the map are checked here, in this (TensorFlow-backend) process. What
the map does needs two devices under the JAX backend: the suite's one JAX process
(tests/jax_process.py, two host CPU devices) runs `run()` below, which builds small models
(GILE-HAN, HAN with a linear head, a tied DRILL language model) once plainly and
once under `keras.distribution.ModelParallel` with the map over a `(batch 1,
model 2)` mesh, and returns the shapes of each device's shards, the logits'
layout, the largest output differences, XLA's per-device memory of the scoring
step, and one-device vs two-device training losses. The tests read it.

Tolerances: sharding moves values, not arithmetic, except that the contraction
behind the logits may be summed in another order; outputs agree to 1e-5 and
training losses (plain SGD, which does not amplify rounding, see
tests/test_distributed_training.py) to 1e-4 relative.
"""

import keras
import numpy as np
import pytest

from keras_labelemb.distribution import label_sharding_layout_map


def one_device_mesh(axes=("batch", "model")):
    return keras.distribution.DeviceMesh((1,) * len(axes), axes, keras.distribution.list_devices()[:1])


def small_gile_han(num_labels=16, joint_dim=8):
    from keras_labelemb.models import gile_han

    keras.utils.set_random_seed(0)
    labels = np.random.default_rng(0).integers(2, 60, (num_labels, 3)).astype("int32")
    return gile_han(60, labels, 3, 5, embedding_dim=8, units=8, joint_dim=joint_dim)


def axes_of(layout_map):
    return {key: layout_map[key].axes for key in layout_map}


def test_a_gile_head_gets_layouts_for_its_label_side_tensors():
    assert axes_of(label_sharding_layout_map(small_gile_han(), one_device_mesh())) == {
        "gile_head/label_embeddings": ("model", None),
        "gile_head/logits": ("batch", "model"),
    }


def test_a_linear_head_gets_its_kernel_and_bias_sharded_on_the_label_axis():
    from keras_labelemb.models import han

    model = han(60, 16, 3, 5, embedding_dim=8, units=8)
    assert axes_of(label_sharding_layout_map(model, one_device_mesh())) == {
        "linear_head/kernel": (None, "model"),
        "linear_head/bias": ("model",),
        "linear_head/logits": ("batch", "model"),
    }


def test_a_tied_language_model_shards_the_word_table_its_labels_are():
    from keras_labelemb.models import drill_lm

    model = drill_lm(64, batch_size=2, bptt=4, units=8, num_layers=1, embedding_dim=8, depth=1)
    layouts = axes_of(label_sharding_layout_map(model, one_device_mesh()))
    embedding = model.get_layer("drill_head").embedding
    assert layouts[embedding.embeddings.path] == ("model", None)  # the vocabulary is the label set
    assert layouts["drill_head/bias"] == ("model",)  # one bias per word
    assert layouts["drill_head/logits"] == ("batch", "model")  # (B, T, L) logits get the first and last axes


def test_a_mesh_with_only_a_model_axis_leaves_the_batch_axis_unsharded():
    layout_map = label_sharding_layout_map(small_gile_han(), one_device_mesh(("model",)))
    assert layout_map["gile_head/logits"].axes == (None, "model")


def test_the_layout_map_is_a_plain_layout_map_users_can_extend():
    layout_map = label_sharding_layout_map(small_gile_han(), one_device_mesh())
    layout_map["word_embedding/embeddings"] = ("model", None)
    assert layout_map["word_embedding/embeddings"].axes == ("model", None)
    assert layout_map["document_encoder/word_encoder/kernel"] is None  # everything else: replicated


def test_wrong_arguments_are_named():
    with pytest.raises(ValueError, match="keras.Model"):
        label_sharding_layout_map("model")
    with pytest.raises(ValueError, match="no label head"):
        label_sharding_layout_map(keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]))
    with pytest.raises(ValueError, match="model_axis"):
        label_sharding_layout_map(small_gile_han(), one_device_mesh(("batch", "labels")))
    with pytest.raises(ValueError, match="DeviceMesh"):
        label_sharding_layout_map(small_gile_han(), device_mesh=(1, 2))


@pytest.fixture(scope="module")
def two_devices(jax_process):
    from conftest import jax_part

    return jax_part(jax_process, "label_sharding")


@pytest.mark.slow
@pytest.mark.jax_process
def test_a_linear_heads_weights_are_split_between_the_devices(two_devices):
    shards = two_devices["linear"]["shards"]
    assert shards["linear_head/kernel"] == [[12, 8], [12, 8]]  # (d_h, L) = (12, 16): 8 labels a device
    assert shards["linear_head/bias"] == [[8], [8]]
    assert shards["document_encoder/word_encoder/kernel"] == [[8, 12], [8, 12]]  # the encoder is replicated


@pytest.mark.slow
@pytest.mark.jax_process
@pytest.mark.parametrize("model", ["gile", "linear", "drill_lm"])
def test_sharded_models_compute_the_unsharded_outputs(two_devices, model):
    result = two_devices[model]
    *other_axes, label_axis = result["logits_spec"]  # (B, L) or (B, T, L); "batch" has 1 device, like None
    assert label_axis == "model" and set(other_axes) <= {None, "batch"}, result
    assert result["max_difference"] < 1e-5, result


@pytest.mark.slow
@pytest.mark.jax_process
def test_label_embeddings_computed_alone_are_split_too(two_devices):
    assert two_devices["gile"]["label_embedding_shards"] == [[8, 8], [8, 8]]  # (L, d) = (16, 8)


@pytest.mark.slow
@pytest.mark.jax_process
def test_the_gile_label_side_is_split_not_only_its_output(two_devices):
    """XLA's plan for the scoring step: each of 2 devices needs at most 60% of one device's buffers."""
    memory = two_devices["gile_memory"]
    assert memory["2"]["temp"] <= 0.6 * memory["1"]["temp"], memory
    assert memory["2"]["output"] * 2 == memory["1"]["output"], memory


@pytest.mark.slow
@pytest.mark.jax_process
@pytest.mark.parametrize("mode", ["full", "sampled"])
def test_training_under_label_sharding_follows_the_unsharded_trajectory(two_devices, mode):
    one, two = (np.array(two_devices["training"][key][mode]) for key in ("one", "two"))
    assert np.isfinite(two).all() and two[-1] < two[0], two
    np.testing.assert_allclose(two, one, rtol=1e-4)


@pytest.mark.slow
@pytest.mark.jax_process
def test_chunked_top_k_scoring_is_unchanged(two_devices):
    assert two_devices["top_k"]["same_indices"], two_devices["top_k"]
    assert two_devices["top_k"]["max_difference"] < 1e-5, two_devices["top_k"]


@pytest.mark.slow
@pytest.mark.jax_process
def test_an_uneven_label_count_is_refused_for_per_label_weights(two_devices):
    assert "do not divide evenly" in two_devices["uneven_error"]


# --------------------------------------------------------------------------
# What the JAX process runs (nothing below runs when pytest imports this module).
# --------------------------------------------------------------------------


def _parallel(model):
    mesh = keras.distribution.DeviceMesh((1, 2), ("batch", "model"), keras.distribution.list_devices())
    return keras.distribution.ModelParallel(layout_map=label_sharding_layout_map(model, mesh), batch_dim_name="batch")


def _jitted_forward(model):
    """`model`'s call as a jitted function of its variables' values and the input, and those values: passed as
    arguments, the variables keep their shardings (an eager call compiles every operation on its own)."""
    import jax

    def forward(trainable, non_trainable, x):
        return model.stateless_call(trainable, non_trainable, x)[0]

    values = [[v.value for v in variables] for variables in (model.trainable_variables, model.non_trainable_variables)]
    return jax.jit(forward), values


def _compiled_call(model, x):
    forward, values = _jitted_forward(model)
    return forward(*values, x)


def _unsharded_and_sharded(build, x):
    """`(sharded model, its logits, largest difference from the plain model's, plain model)`.

    Compiled calls, as JAX runs models (`predict`, `fit`); a sharded model called eagerly, op by op, is not
    checked here.
    """
    plain = build()
    expected = np.asarray(_compiled_call(plain, x))
    with _parallel(plain).scope():
        model = build()
        logits = _compiled_call(model, x)
    return model, logits, float(np.max(np.abs(np.asarray(logits) - expected))), plain


def _shards(model):
    return {v.path: [list(s.data.shape) for s in v.value.addressable_shards] for v in model.variables}


def _scoring_memory(build, x):
    memory = {}
    plain = build()
    for devices, distribution in ((1, None), (2, _parallel(plain))):
        keras.distribution.set_distribution(distribution)
        model = build()
        forward, values = _jitted_forward(model)
        stats = forward.lower(*values, x).compile().memory_analysis()
        memory[str(devices)] = {"temp": stats.temp_size_in_bytes, "output": stats.output_size_in_bytes}
    keras.distribution.set_distribution(None)
    return memory


def _training(x, labels):
    from keras_labelemb.losses import SampledSigmoidLoss
    from keras_labelemb.tasks import LabelClassifier

    rng = np.random.default_rng(1)
    y = np.zeros((len(x), len(labels)), "float32")
    for row in range(len(x)):
        y[row, rng.choice(len(labels), 2, replace=False)] = 1.0

    def build():
        keras.utils.set_random_seed(0)
        from keras_labelemb.layers import GileHead, HierarchicalAttention
        from keras_labelemb.models import document_classifier
        from keras_labelemb.models.document_classifier import prior_bias

        embedding = keras.layers.Embedding(
            60, 16, mask_zero=True, embeddings_initializer=keras.initializers.RandomNormal(stddev=0.5)
        )
        return document_classifier(
            HierarchicalAttention("dense", 16, "dense", 16, dropout=0.2),
            GileHead(embedding, labels, joint_dim=16, bias_initializer=prior_bias(len(labels))),
            max_sentences=3,
            max_sentence_length=5,
        )

    def fit(mode):
        model = build()
        if mode == "full":
            trainer = model
            trainer.compile(keras.optimizers.SGD(2.0), keras.losses.BinaryCrossentropy(from_logits=True))
        else:
            trainer = LabelClassifier.from_model(model)
            loss = SampledSigmoidLoss(num_negatives=4, max_positives=16, seed=1)
            trainer.compile(keras.optimizers.SGD(2.0), loss=loss)
        return trainer.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0).history["loss"]

    result = {"one": {mode: fit(mode) for mode in ("full", "sampled")}}
    with _parallel(build()).scope():
        result["two"] = {mode: fit(mode) for mode in ("full", "sampled")}
    return result


def run():
    import jax

    from keras_labelemb.evaluation import predict_top_k
    from keras_labelemb.models import drill_lm, han
    from keras_labelemb.tasks import LabelClassifier

    assert keras.backend.backend() == "jax" and len(jax.devices()) == 2, jax.devices()
    rng = np.random.default_rng(0)
    x = rng.integers(1, 60, (8, 3, 5)).astype("int32")
    result = {}

    model, eager, difference, plain = _unsharded_and_sharded(small_gile_han, x)
    result["gile"] = {"logits_spec": list(eager.sharding.spec), "max_difference": difference}
    head = LabelClassifier.from_model(model).head
    with _parallel(plain).scope():  # E alone (what predict_top_k caches per chunk): 8 of the 16 labels a device
        E = head.embed_labels()
    result["gile"]["label_embedding_shards"] = [list(shard.data.shape) for shard in E.addressable_shards]
    plain_top_k = predict_top_k(plain, x, k=3, label_chunk_size=6, verbose=0)
    with _parallel(plain).scope():
        top_k = predict_top_k(model, x, k=3, label_chunk_size=6, verbose=0)  # chunks 6, 6, 4
    result["top_k"] = {
        "same_indices": bool((top_k[0] == plain_top_k[0]).all()),
        "max_difference": float(np.max(np.abs(top_k[1] - plain_top_k[1]))),
    }

    def linear():
        keras.utils.set_random_seed(0)
        return han(60, 16, 3, 5, embedding_dim=8, units=12)

    model, eager, difference, _ = _unsharded_and_sharded(linear, x)
    result["linear"] = {
        "logits_spec": list(eager.sharding.spec),
        "max_difference": difference,
        "shards": _shards(model),
    }

    def language_model():
        keras.utils.set_random_seed(0)
        return drill_lm(64, batch_size=2, bptt=4, units=8, num_layers=1, embedding_dim=8, depth=1, stateful=False)

    words = rng.integers(1, 64, (2, 4)).astype("int32")
    model, eager, difference, _ = _unsharded_and_sharded(language_model, words)
    result["drill_lm"] = {"logits_spec": list(eager.sharding.spec), "max_difference": difference}

    # Many labels, a small encoder: the label side dominates the scoring step's buffers.
    result["gile_memory"] = _scoring_memory(lambda: small_gile_han(num_labels=2048, joint_dim=64), x)
    result["training"] = _training(x, rng.integers(2, 60, (16, 3)).astype("int32"))

    try:
        mesh = keras.distribution.DeviceMesh((1, 2), ("batch", "model"), keras.distribution.list_devices())
        label_sharding_layout_map(han(60, 15, 3, 5, embedding_dim=8, units=8), mesh)
        result["uneven_error"] = "no error"
    except ValueError as error:
        result["uneven_error"] = str(error)
    return result
