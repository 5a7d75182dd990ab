"""Language modelling: corpora and truncated-BPTT batches, the Perplexity metric, the `drill_lm` builder."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_labelemb.datasets.language_modeling import bptt_arrays
from keras_labelemb.layers import LinearHead
from keras_labelemb.metrics import Perplexity
from keras_labelemb.models import drill_lm, find_label_head
from keras_labelemb.training import ResetStates, reset_states

RNG = np.random.default_rng(11)

V, B, T = 40, 4, 6


def windows(num_batches):
    stream = RNG.integers(0, V, size=B * (num_batches * T + 1) + 3)
    return bptt_arrays(stream, B, T)


@pytest.mark.parametrize(
    "head,jit_compile", [("drill", True), ("tied", False), ("bilinear", False), ("dual", False), ("full", False)]
)
@pytest.mark.slow  # make test, not the edit loop (make test-fast)
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
