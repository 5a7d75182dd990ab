"""Every public layer through the shared `run_layer_test` (TensorFlow backend).

The cases live in tests/layer_cases.py; tests/test_backends.py runs the same ones under JAX and PyTorch.
"""

import keras
import pytest
from layer_cases import CASES, run_case

# Cases that took more than ~5 s each on the 2-core CPU machine (pytest --durations, TF 2.21, when the training
# step was compiled with XLA too; it is eager since 2026-11-26): the recurrent encoders (XLA compiles their
# loops) and the decoder. Marked slow so `pytest -m "not slow"` keeps a quick
# contract run of every other case; `make test` runs them all.
SLOW_CASES = frozenset(
    {
        "hierarchical_attention_bigru_lstm",  # 14 s
        "adaptive_label_decoder_greedy_logits",  # 11 s
        "co_attention",  # 9 s
        "region_lstm_side_encoder",  # 9 s
        "adaptive_label_decoder_teacher_forcing",  # 9 s
        "hierarchical_attention_flat_with_scores",  # 8 s
        "hierarchical_attention_multilingual",  # 8 s
        "hierarchical_attention_dense",  # 8 s
        "region_lstm_bidirectional_chopped",  # 7 s
        "region_lstm_full_gates_sequence",  # 6 s
        "drill_head_descriptions",  # 6 s
    }
)


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_CASES else name for name in sorted(CASES)]
)
def test_layer_contract(name):
    keras.utils.set_random_seed(0)
    run_case(name)


def test_slow_cases_name_real_cases():
    """A renamed case must not silently lose (or keep) its slow mark."""
    assert SLOW_CASES <= set(CASES), sorted(SLOW_CASES - set(CASES))
