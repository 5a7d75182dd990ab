"""CoAttention (CNLE eqs. 6-7) against a NumPy reference, its masks and its ablation switches.

The shared contract checks run through `run_layer_test` (tests/layer_cases.py: co_attention,
co_attention_without_label_embedding).
"""

import numpy as np
import pytest

from keras_labelemb.layers import CoAttention


def softmax(x, mask):
    x = np.where(mask, x, -np.inf)
    peak = np.max(np.where(mask, x, -1e30), axis=-1, keepdims=True)
    e = np.where(mask, np.exp(x - peak), 0.0)
    total = e.sum(-1, keepdims=True)
    return e / np.where(total > 0, total, 1.0)


def layer_norm(x, gamma, beta, eps):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def weights(layer, prefix):
    return {w.path.split(f"{layer.name}/")[1][len(prefix) :]: np.asarray(w) for w in layer.weights if prefix in w.path}


def numpy_attention(w, query, keys, key_mask):
    """`MultiHead(Q, K, K)`: (B, q, d) x (B, k, d) -> (B, q, d_h), weights (B, p, q, k)."""
    q = np.einsum("bqd,dpk->bqpk", query, w["query/kernel"]) + w["query/bias"]
    k = np.einsum("bsd,dpk->bspk", keys, w["key/kernel"]) + w["key/bias"]
    v = np.einsum("bsd,dpk->bspk", keys, w["value/kernel"]) + w["value/bias"]
    scores = np.einsum("bqpk,bspk->bpqs", q, k) / np.sqrt(q.shape[-1])
    a = softmax(scores, key_mask[:, None, None, :])
    heads = np.einsum("bpqs,bspk->bqpk", a, v)
    return np.einsum("bqpk,pkh->bqh", heads, w["attention_output/kernel"]) + w["attention_output/bias"], a


def numpy_fuse(w, attended, residual, mask, eps):
    hidden = np.maximum(attended @ w["ffn_intermediate/kernel"] + w["ffn_intermediate/bias"], 0.0)
    out = hidden @ w["ffn_output/kernel"] + w["ffn_output/bias"]
    fused = layer_norm(out + residual, w["layer_norm/gamma"], w["layer_norm/beta"], eps)
    return np.where(mask[..., None], fused, 0.0)


def numpy_co_attention(layer, x, labels, mask, labels_mask):
    """The layer's outputs recomputed from its own weights (eqs. 6-7)."""
    eps = layer.layer_norm_epsilon
    x = np.where(mask[..., None], x, 0.0)
    text = weights(layer, "text_")
    if not layer.use_label_embedding:
        return numpy_fuse(text, x, x, mask, eps)
    batch = x.shape[0]
    labels = np.broadcast_to(labels, (batch,) + labels.shape[-2:]) if labels.ndim == 2 else labels
    labels_mask = np.broadcast_to(labels_mask, (batch, labels.shape[1])) if labels_mask.ndim == 1 else labels_mask
    labels = np.where(labels_mask[..., None], labels, 0.0)
    x_att, x_scores = numpy_attention(weights(layer, "text_attention/"), x, labels, labels_mask)
    x_att = np.where(labels_mask.any(-1)[:, None, None], x_att, 0.0)
    label = weights(layer, "label_")
    if layer.use_text_to_label_attention:
        l_att, l_scores = numpy_attention(weights(layer, "label_attention/"), labels, x, mask)
        l_att = np.where(mask.any(-1)[:, None, None], l_att, 0.0)
    else:
        l_att, l_scores = labels, np.zeros((batch, layer.num_heads, labels.shape[1], x.shape[1]))
    x_scores = x_scores * (mask[:, None, :, None] & labels_mask[:, None, None, :])
    l_scores = l_scores * (labels_mask[:, None, :, None] & mask[:, None, None, :])
    return (
        numpy_fuse(text, x_att, x, mask, eps),
        numpy_fuse(label, l_att, labels, labels_mask, eps),
        x_scores,
        l_scores,
    )


def inputs(seed=0, batch=3, length=5, count=4, width=6):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, length, width)).astype("float32")
    labels = rng.normal(size=(count, width)).astype("float32")
    mask = np.ones((batch, length), bool)
    mask[0, 3:] = False
    mask[2] = False  # a fully padded text
    labels_mask = np.array([True, True, False, True])
    return x, labels, mask, labels_mask


def randomized(layer, *args, **kwargs):
    """Calls once to build, then gives every weight random values (LN gammas and biases included)."""
    layer(*args, **kwargs)
    rng = np.random.default_rng(1)
    layer.set_weights([rng.normal(scale=0.5, size=w.shape).astype("float32") for w in layer.get_weights()])
    return layer


@pytest.mark.parametrize("text_to_label", [True, False])
def test_matches_numpy_reference(text_to_label):
    x, labels, mask, labels_mask = inputs()
    layer = CoAttention(
        num_heads=2,
        attention_dim=5,
        intermediate_dim=7,
        use_text_to_label_attention=text_to_label,
        return_attention_scores=True,
    )
    randomized(layer, x, labels=labels, mask=mask, labels_mask=labels_mask)
    outputs = layer(x, labels=labels, mask=mask, labels_mask=labels_mask)
    expected = numpy_co_attention(layer, x, labels, mask, labels_mask)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(np.asarray(got), want, atol=2e-5)
    assert not text_to_label or "label_attention" in {w.path.split("/")[1] for w in layer.weights}


def test_batched_labels_match_numpy_reference():
    x, _, mask, _ = inputs()
    rng = np.random.default_rng(3)
    labels = rng.normal(size=(3, 2, 6)).astype("float32")  # a label set per text
    labels_mask = np.array([[True, True], [True, False], [False, False]])
    layer = CoAttention(num_heads=3, return_attention_scores=True)
    randomized(layer, x, labels=labels, mask=mask, labels_mask=labels_mask)
    outputs = layer(x, labels=labels, mask=mask, labels_mask=labels_mask)
    for got, want in zip(outputs, numpy_co_attention(layer, x, labels, mask, labels_mask)):
        np.testing.assert_allclose(np.asarray(got), want, atol=2e-5)


def test_without_label_embedding_matches_numpy_reference():
    x, _, mask, _ = inputs()
    layer = CoAttention(use_label_embedding=False, intermediate_dim=4)
    randomized(layer, x, mask=mask)
    np.testing.assert_allclose(
        np.asarray(layer(x, mask=mask)), numpy_co_attention(layer, x, None, mask, None), atol=2e-5
    )
    assert {w.path.split("/")[1] for w in layer.weights} == {
        "text_ffn_intermediate",
        "text_ffn_output",
        "text_layer_norm",
    }


def test_padded_words_and_labels_are_never_attended():
    x, labels, mask, labels_mask = inputs()
    layer = randomized(
        CoAttention(num_heads=2, return_attention_scores=True), x, labels=labels, mask=mask, labels_mask=labels_mask
    )
    x_fuse, l_fuse, label_to_text, text_to_label = (
        np.asarray(o) for o in layer(x, labels=labels, mask=mask, labels_mask=labels_mask)
    )
    # Zero weight on padded labels (words -> labels) and padded words (labels -> words).
    assert np.all(label_to_text[..., ~labels_mask] == 0)
    assert np.all(text_to_label[0][..., 3:] == 0) and np.all(text_to_label[2] == 0)
    np.testing.assert_allclose(label_to_text[1].sum(-1), 1.0, atol=1e-5)
    # Other values at padded positions change nothing; padded outputs are zeros.
    noisy_x = np.where(mask[..., None], x, 100.0).astype("float32")
    noisy_labels = np.where(labels_mask[:, None], labels, -50.0).astype("float32")
    again = layer(noisy_x, labels=noisy_labels, mask=mask, labels_mask=labels_mask)
    for before, after in zip((x_fuse, l_fuse, label_to_text, text_to_label), again):
        np.testing.assert_allclose(np.asarray(after), before, atol=1e-5)
    assert np.all(x_fuse[~mask] == 0) and np.all(l_fuse[:, ~labels_mask] == 0)


def test_fully_padded_text_and_no_labels_give_finite_outputs():
    x, labels, _, _ = inputs()
    layer = CoAttention(num_heads=2, return_attention_scores=True)
    outputs = layer(x, labels=labels, mask=np.zeros((3, 5), bool), labels_mask=np.zeros(4, bool))
    for value in outputs:
        assert np.all(np.isfinite(np.asarray(value)))
    assert np.all(np.asarray(outputs[0]) == 0)


def test_ablation_switches_change_what_depends_on_what():
    x, labels, mask, labels_mask = inputs()
    other_text = x + np.random.default_rng(5).normal(size=x.shape).astype("float32")
    full = CoAttention(num_heads=2)
    no_t2l = CoAttention(num_heads=2, use_text_to_label_attention=False)
    for layer in (full, no_t2l):
        randomized(layer, x, labels=labels, mask=mask, labels_mask=labels_mask)
    # With text-to-label attention, the label side depends on the text; without it, it does not.
    _, l_full = full(x, labels=labels, mask=mask, labels_mask=labels_mask)
    _, l_full_other = full(other_text, labels=labels, mask=mask, labels_mask=labels_mask)
    assert not np.allclose(np.asarray(l_full)[0], np.asarray(l_full_other)[0])
    _, l_ablated = no_t2l(x, labels=labels, mask=mask, labels_mask=labels_mask)
    _, l_ablated_other = no_t2l(other_text, labels=labels, mask=mask, labels_mask=labels_mask)
    np.testing.assert_allclose(np.asarray(l_ablated), np.asarray(l_ablated_other), atol=1e-6)
    # ... while the text side still depends on the labels.
    x_ablated, _ = no_t2l(x, labels=labels, mask=mask, labels_mask=labels_mask)
    x_ablated_other, _ = no_t2l(x, labels=labels * 2, mask=mask, labels_mask=labels_mask)
    assert not np.allclose(np.asarray(x_ablated)[1], np.asarray(x_ablated_other)[1])
    # Without label embedding there are no labels at all.
    text_only = CoAttention(use_label_embedding=False)
    with pytest.raises(ValueError, match="no label side"):
        text_only(x, labels=labels)
    with pytest.raises(ValueError, match="use_label_embedding"):
        CoAttention(use_label_embedding=False, return_attention_scores=True)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"num_heads": 0}, "num_heads"),
        ({"dropout": 1.5}, "dropout"),
        ({"use_text_to_label_attention": "yes"}, "use_text_to_label_attention"),
        ({"layer_norm_epsilon": -1.0}, "layer_norm_epsilon"),
    ],
)
def test_arguments_are_validated(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CoAttention(**kwargs)


def test_labels_are_required_with_label_embedding():
    x, *_ = inputs()
    with pytest.raises(ValueError, match="labels"):
        CoAttention()(x)
