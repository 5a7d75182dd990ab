"""The oh-2LSTMp builder (Johnson & Zhang 2016): the paper's defaults, its variants and its heads."""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead, LinearHead
from keras_labelemb.models import oh_2lstmp
from keras_labelemb.tasks import LabelClassifier

VOCAB = 30


def test_oh_2lstmp_builder():
    model = oh_2lstmp(VOCAB, num_labels=4, max_tokens=12, units=3, num_regions=3, chop_size=5)
    assert model.output.shape == (None, 4)
    # oh-2LSTMp: two directions, each word's one-hot row feeds only the forget gate and the cell input
    # (input/output gates removed), so the kernels are 2 * units wide.
    kernels = {w.path.split("/")[-1]: tuple(w.shape) for w in model.get_layer("region_lstm").weights}
    assert kernels["forward_kernel"] == kernels["backward_kernel"] == (VOCAB, 2 * 3)
    region = model.get_layer("region_lstm")
    assert (region.gates, region.direction, region.pooling, region.chop_size) == ("no_io", "bidirectional", "max", 5)
    full = oh_2lstmp(VOCAB, num_labels=4, units=3, gates="full", direction="forward")
    assert full.get_layer("region_lstm").output.shape == (None, 10 * 3)
    kernels = {w.path.split("/")[-1]: tuple(w.shape) for w in full.get_layer("region_lstm").weights}
    assert kernels["forward_kernel"] == (VOCAB, 4 * 3) and "backward_kernel" not in kernels  # one LSTM, 4 gates
    labels = np.array([[2, 3], [4, 0]], "int32")
    # A head that reads descriptions brings its own word table (the one-hot model has none to share).
    head = GileHead(keras.layers.Embedding(VOCAB, 5, mask_zero=True), labels, joint_dim=4)
    gile = oh_2lstmp(VOCAB, max_tokens=12, units=3, head=head)
    assert gile(np.random.default_rng(0).integers(0, VOCAB, (16, 12))).shape == (16, 2)
    with pytest.raises(ValueError, match="`num_labels` is required .* Received: num_labels=None"):
        oh_2lstmp(VOCAB)
    with pytest.raises(ValueError, match="`head` must be None .* Received: head='gile'"):
        oh_2lstmp(VOCAB, num_labels=2, head="gile")
    assert isinstance(LabelClassifier.from_model(model).head, LinearHead)  # the paper's linear top layer
