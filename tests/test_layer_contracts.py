"""Every public layer through the shared `run_layer_test` (TensorFlow backend).

The cases live in tests/layer_cases.py; tests/test_jax_backend.py runs the same ones under JAX.
"""

import keras
import pytest
from layer_cases import CASES, run_case


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_contract(name):
    keras.utils.set_random_seed(0)
    run_case(name)
