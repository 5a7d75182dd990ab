"""Language modelling: corpora and truncated-BPTT batches, the Perplexity metric, the `drill_lm` builder."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_labelemb.datasets.bptt import bptt_arrays
from keras_labelemb.layers import LabelHead, LinearHead
from keras_labelemb.layers.walk_layers import walk_layers
from keras_labelemb.metrics import Perplexity
from keras_labelemb.models import drill_lm
from keras_labelemb.training import ResetStates
from keras_labelemb.training.reset_states import reset_states

RNG = np.random.default_rng(11)

V, B, T = 40, 4, 6


def output_head(model):
    """The model's one `LabelHead` (a language model's heads score the vocabulary: not a `LabelClassifier`'s)."""
    heads = [layer for layer in walk_layers(model) if isinstance(layer, LabelHead)]
    assert len(heads) == 1, heads
    return heads[0]


def windows(num_batches):
    stream = RNG.integers(0, V, size=B * (num_batches * T + 1) + 3)
    return bptt_arrays(stream, B, T)


@pytest.mark.parametrize(
    "head,jit_compile", [("drill", True), ("tied", False), ("bilinear", False), ("dual", False), ("full", False)]
)
@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_drill_lm_trains_statefully_with_each_head(head, jit_compile):
    keras.utils.set_random_seed(0)
    options = {"depth": 2} if head == "drill" else {}
    model = drill_lm(V, batch_size=B, bptt=T, units=8, num_layers=2 if jit_compile else 1, head=head, **options)
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
    output_layer = output_head(model)
    if head == "full":  # the usual softmax layer: its own (V, d_h) weights, no tie to the input embedding
        assert isinstance(output_layer, LinearHead) and output_layer.num_labels == V
    else:
        assert output_layer.variant == head and output_layer.embedding is model.get_layer("word_embedding")


def test_lstm_state_is_carried_across_batches_until_reset():
    model = drill_lm(V, batch_size=B, bptt=T, units=8, num_layers=1, depth=1)
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


def test_head_options_reach_the_drill_head_and_a_drill_head_has_the_lm_defaults():
    model = drill_lm(
        V,
        batch_size=None,
        bptt=None,
        units=8,
        num_layers=1,
        stateful=False,
        depth=2,
        head_dropout=0.1,
        head_dropout_type="standard",
        head_activation="tanh",
        residual_to_previous=True,
        head_seed=3,
    )
    head = model.get_layer("drill_head")
    assert (head.depth, head.dropout, head.dropout_type, head.residual_to_previous) == (2, 0.1, "standard", True)
    assert head.activation is keras.activations.tanh and head.seed == 3
    default = output_head(drill_lm(V, batch_size=None, bptt=None, units=8, num_layers=1, stateful=False))
    assert (default.depth, default.dropout, default.dropout_type) == (4, 0.3, "variational")
    assert default.activation is keras.activations.sigmoid
    dual = output_head(drill_lm(V, bptt=None, units=8, num_layers=1, stateful=False, head="dual", joint_dim=5))
    assert dual.variant == "dual" and dual.joint_dim == 5 and dual.dropout == 0.0  # DrillHead's own defaults


def test_drill_lm_validates_arguments():
    with pytest.raises(ValueError, match=r"`head` must be one of \['drill'.*Received: head='mos'"):
        drill_lm(V, batch_size=B, head="mos")
    with pytest.raises(ValueError, match="batch_size"):
        drill_lm(V, batch_size=None)
    with pytest.raises(ValueError, match=r"'full' language-model head takes no options; \['depth'\] do not apply"):
        drill_lm(V, batch_size=B, head="full", depth=2)  # an option the head does not take
    with pytest.raises(ValueError, match=r"\['head_dropout', 'head_seed'\] do not apply.*head_dropout=0.2"):
        drill_lm(V, batch_size=B, head="full", head_dropout=0.2, head_seed=1)
    with pytest.raises(ValueError, match=r"\['dropout_type'\] do not apply.*Received: dropout_type='standard'"):
        drill_lm(V, batch_size=B, dropout_type="standard")  # not an option: the head's is head_dropout_type
    with pytest.raises(ValueError, match="variant='tied' has no label network"):
        drill_lm(V, batch_size=B, head="tied", depth=2)
    # The old dict spec names what to pass instead.
    with pytest.raises(ValueError, match=r"`head` is a name.*keyword arguments.*head='drill', depth=2.*'type'"):
        drill_lm(V, batch_size=B, head={"type": "drill", "depth": 2})
    with pytest.raises(ValueError, match=r"`head_dropout` must be a float in \[0, 1\). Received: head_dropout=1.5"):
        drill_lm(V, batch_size=B, head="dual", head_dropout=1.5)
    with pytest.raises(ValueError, match="Received: head_dropout_type='locked'"):
        drill_lm(V, batch_size=B, head_dropout_type="locked")
    with pytest.raises(ValueError, match="Received: depth=-1"):
        drill_lm(V, batch_size=B, depth=-1)  # DrillHead's check, under the same name
