"""Language modelling: corpora and truncated-BPTT batches, the Perplexity metric, the `drill_lm` builder."""

import keras
import numpy as np
import pytest
from conftest import skip_missing_data
from keras import ops

from keras_labelemb.datasets import LanguageModelingData, bptt_dataset, load_ptb, load_wikitext2
from keras_labelemb.datasets.language_modeling import bptt_arrays, num_bptt_batches, tokenize_lines
from keras_labelemb.layers import LinearHead
from keras_labelemb.metrics import Perplexity
from keras_labelemb.models import drill_lm, find_label_head
from keras_labelemb.training import ResetStates, reset_states

RNG = np.random.default_rng(11)


# ---------------------------------------------------------------------------
# Corpora
# ---------------------------------------------------------------------------


def test_ptb_counts(data_dir):
    if not (data_dir / "ptb").is_dir():
        skip_missing_data("PTB", data_dir / "ptb")
    data = load_ptb(data_dir / "ptb")
    assert data.vocabulary_size == 10_000
    assert (len(data.train), len(data.val), len(data.test)) == (929_589, 73_760, 82_430)
    assert data.vocabulary[0] == "the" and "<eos>" in data.vocabulary and "<unk>" in data.vocabulary
    counts = data.train_counts()
    assert counts.sum() == 929_589 and (np.diff(counts) <= 0).all()  # ids sorted by frequency


def test_wikitext2_counts(data_dir):
    if not (data_dir / "wikitext2").is_dir():
        skip_missing_data("WikiText-2", data_dir / "wikitext2")
    data = load_wikitext2(data_dir / "wikitext2")
    assert data.vocabulary_size == 33_278
    assert (len(data.train), len(data.val), len(data.test)) == (2_088_628, 217_646, 245_569)


def test_missing_corpus_says_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError, match="ptb.train.txt"):
        load_ptb(tmp_path, download=False)


def test_unknown_tokens_map_to_unk_or_raise():
    data = LanguageModelingData.from_token_lists("t", tokenize_lines(["a <unk> b"]), ["a", "zzz"], ["b"])
    assert data.val.tolist() == [data.vocabulary.index("a"), data.vocabulary.index("<unk>")]
    with pytest.raises(ValueError, match="zzz"):
        LanguageModelingData.from_token_lists("t", tokenize_lines(["a b"]), ["zzz"], ["a"])


def test_bptt_batches_continue_each_row_and_shift_targets():
    stream = np.arange(1, 104)  # 103 tokens: 4 rows of 25 (3 dropped)
    x, y = bptt_arrays(stream, batch_size=4, bptt=5)
    assert x.shape == y.shape == (4, 4, 5) == (num_bptt_batches(103, 4, 5), 4, 5)
    rows = stream[:100].reshape(4, 25)
    np.testing.assert_array_equal(np.concatenate(list(x), axis=1), rows[:, :20])  # row b continues across batches
    np.testing.assert_array_equal(np.concatenate(list(y), axis=1), rows[:, 1:21])  # next tokens
    with pytest.raises(ValueError, match="too short"):
        bptt_arrays(np.arange(10), batch_size=4, bptt=5)
    with pytest.raises(ValueError, match="bptt"):
        bptt_arrays(stream, batch_size=4, bptt=0)


def test_bptt_dataset_has_fixed_shapes_in_stream_order():
    stream = np.arange(1, 104)
    dataset = bptt_dataset(stream, batch_size=4, bptt=5)
    assert tuple(dataset.element_spec[0].shape) == (4, 5)
    batches = [x for x, _ in dataset.as_numpy_iterator()]
    np.testing.assert_array_equal(np.stack(batches), bptt_arrays(stream, 4, 5)[0])


# ---------------------------------------------------------------------------
# Perplexity
# ---------------------------------------------------------------------------


def numpy_cross_entropy(targets, logits):
    logits = logits - logits.max(-1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    return -np.take_along_axis(log_probs, targets[..., None], -1)[..., 0]


def test_perplexity_streams_exp_of_mean_token_cross_entropy():
    logits = RNG.normal(scale=3, size=(2, 4, 5, 9)).astype("float32")  # two batches of (4, 5) tokens
    targets = RNG.integers(0, 9, size=(2, 4, 5))
    weights = (RNG.random((2, 4, 5)) > 0.3).astype("float32")
    metric = Perplexity()
    for b in range(2):
        metric.update_state(targets[b], logits[b], sample_weight=weights[b])
    ce = numpy_cross_entropy(targets, logits)
    want = np.exp((ce * weights).sum() / weights.sum())
    assert float(metric.result()) == pytest.approx(want, rel=1e-5)
    metric.reset_state()
    assert float(metric.result()) == 1.0
    probabilities = Perplexity(from_logits=False)
    softmax = np.exp(logits[0]) / np.exp(logits[0]).sum(-1, keepdims=True)
    probabilities.update_state(targets[0], softmax)
    assert float(probabilities.result()) == pytest.approx(np.exp(ce[0].mean()), rel=1e-4)


def test_perplexity_ignores_a_class_and_accepts_per_sequence_weights():
    logits = RNG.normal(size=(3, 4, 6)).astype("float32")
    targets = RNG.integers(1, 6, size=(3, 4))
    targets[0, 2:] = 0  # padding
    metric = Perplexity(ignore_class=0)
    metric.update_state(targets, logits, sample_weight=np.array([1.0, 0.0, 2.0]))
    ce = numpy_cross_entropy(targets, logits)
    w = (targets != 0) * np.array([1.0, 0.0, 2.0])[:, None]
    assert float(metric.result()) == pytest.approx(np.exp((ce * w).sum() / w.sum()), rel=1e-5)
    config = metric.get_config()
    assert Perplexity.from_config(config).ignore_class == 0
    with pytest.raises(ValueError, match="ignore_class"):
        Perplexity(ignore_class="pad")


# ---------------------------------------------------------------------------
# drill_lm
# ---------------------------------------------------------------------------

V, B, T = 40, 4, 6


def windows(num_batches):
    stream = RNG.integers(0, V, size=B * (num_batches * T + 1) + 3)
    return bptt_arrays(stream, B, T)


@pytest.mark.parametrize(
    "head,jit_compile", [("drill", True), ("tied", False), ("bilinear", False), ("dual", False), ("full", False)]
)
def test_drill_lm_trains_statefully_with_each_head(head, jit_compile):
    keras.utils.set_random_seed(0)
    spec = {"type": head, "depth": 2} if head == "drill" else head
    model = drill_lm(V, batch_size=B, bptt=T, units=8, num_layers=2 if jit_compile else 1, head=spec)
    model.compile(
        keras.optimizers.Adam(1e-2),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[Perplexity()],
        jit_compile=jit_compile,
    )
    x, y = windows(3)
    history = model.fit(
        x.reshape(-1, T), y.reshape(-1, T), batch_size=B, shuffle=False, epochs=2, callbacks=[ResetStates()], verbose=0
    )
    assert np.isfinite(history.history["loss"]).all()
    result = model.evaluate(
        x.reshape(-1, T), y.reshape(-1, T), batch_size=B, callbacks=[ResetStates()], verbose=0, return_dict=True
    )
    # Equal-sized batches: the corpus perplexity is exp of the mean loss.
    assert result["perplexity"] == pytest.approx(np.exp(result["loss"]), rel=1e-4)
    output_layer = find_label_head(model)
    if head == "full":  # the usual softmax layer: its own (V, d_h) weights, no tie to the input embedding
        assert isinstance(output_layer, LinearHead) and output_layer.num_labels == V
    else:
        assert output_layer.variant == head and output_layer.embedding is model.get_layer("word_embedding")


def test_lstm_state_is_carried_across_batches_until_reset():
    model = drill_lm(V, batch_size=B, bptt=T, units=8, num_layers=1, head={"type": "drill", "depth": 1})
    x, _ = windows(1)
    first = ops.convert_to_numpy(model(x[0]))
    carried = ops.convert_to_numpy(model(x[0]))
    assert not np.allclose(first, carried)  # the second call starts from the first call's state
    assert reset_states(model) == 1
    np.testing.assert_allclose(ops.convert_to_numpy(model(x[0])), first, atol=1e-6)


def test_drill_lm_projects_when_embedding_and_lstm_widths_differ():
    model = drill_lm(V, batch_size=None, bptt=None, units=8, num_layers=1, embedding_dim=6, stateful=False)
    assert model.get_layer("projection").units == 6
    assert tuple(model(np.zeros((2, 9), "int32")).shape) == (2, 9, V)


def test_drill_lm_validates_arguments():
    with pytest.raises(ValueError, match="head"):
        drill_lm(V, batch_size=B, head="mos")
    with pytest.raises(ValueError, match="batch_size"):
        drill_lm(V, batch_size=None)
    with pytest.raises(ValueError, match=r"\['depth'\] do not apply"):
        drill_lm(V, batch_size=B, head={"type": "full", "depth": 2})  # an option the head does not take
    with pytest.raises(ValueError, match=r"\['head_dropout'\] do not apply"):
        drill_lm(V, batch_size=B, head={"type": "drill", "head_dropout": 0.2})
    with pytest.raises(ValueError, match="variant='tied' has no label network"):
        drill_lm(V, batch_size=B, head={"type": "tied", "depth": 2})
