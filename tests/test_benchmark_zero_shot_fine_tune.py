"""The pieces of benchmarks.zero_shot_fine_tune that run on the GPU machine: stage 2 starts from stage 1's head."""

import keras
import numpy as np
import pytest
from sentence_helpers import DOCUMENTS, LABELS, encoder

from benchmarks.sentence_hybrid import hybrid_head
from benchmarks.zero_shot_fine_tune import own_variables, parse_args, start_from


def built_head(seed):
    enc = encoder()
    head = hybrid_head(enc, [1, 2, 3], LABELS)
    head(enc(DOCUMENTS))
    head.adapt(DOCUMENTS)
    keras.utils.set_random_seed(seed)
    for v in own_variables(head, enc):
        v.assign(np.random.normal(size=v.shape).astype(v.dtype))
    return head, enc


def test_start_from_copies_the_heads_own_variables_and_not_the_encoder():
    trained, trained_encoder = built_head(1)
    head, enc = built_head(2)
    encoder_before = [np.array(v) for v in enc.variables]
    names = [v.path.split("/", 1)[1] for v in own_variables(head, enc)]
    assert names and not any("backbone" in name for name in names)
    start_from(head, enc, trained, trained_encoder)
    for target, source in zip(own_variables(head, enc), own_variables(trained, trained_encoder)):
        np.testing.assert_array_equal(np.array(target), np.array(source))
    for after, before in zip(enc.variables, encoder_before):
        np.testing.assert_array_equal(np.array(after), before)
    source = own_variables(trained, trained_encoder)[-1]
    source.assign(source + 1.0)  # a copy: changing (or, under JAX, donating) the source leaves the target
    assert not np.allclose(np.array(own_variables(head, enc)[-1]), np.array(source))


def test_one_of_the_two_steps_is_asked_for():
    with pytest.raises(SystemExit):
        parse_args([])
    assert parse_args(["--bundle", "x", "--quick"]).splits == 1
