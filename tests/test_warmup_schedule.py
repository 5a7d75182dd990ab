"""Tests of `warmup_schedule`."""

import keras
import numpy as np
import pytest

from keras_labelemb.training.warmup_schedule import WarmupSchedule


def test_warmup_schedule_rises_then_decays_and_serializes():
    schedule = WarmupSchedule(model_dim=256, warmup_steps=800)
    rates = [float(schedule(step)) for step in (0, 399, 799, 3199)]
    assert rates[0] < rates[1] < rates[2] and rates[3] < rates[2]
    np.testing.assert_allclose(rates[2], 256**-0.5 * 800**-0.5, rtol=1e-5)
    np.testing.assert_allclose(rates[3], rates[2] / 2, rtol=1e-4)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(schedule))
    assert float(clone(100)) == float(schedule(100))
    with pytest.raises(ValueError, match="warmup_steps"):
        WarmupSchedule(warmup_steps=0)
