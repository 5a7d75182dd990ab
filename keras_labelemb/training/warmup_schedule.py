"""The Transformer's warm-up learning-rate schedule (Vaswani et al. 2017), as CNLE trains with it."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_positive_int


@keras.saving.register_keras_serializable(package="keras_labelemb")
class WarmupSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """`lr(step) = scale * model_dim^-0.5 * min(step^-0.5, step * warmup_steps^-1.5)`.

    The rate rises linearly for `warmup_steps` steps, then decays as
    `1/sqrt(step)` (`step` counts from 1). CNLE: `model_dim` 256, 800
    warm-up steps, Adam with `beta_2=0.98`, `epsilon=1e-9` (`cnle_optimizer`).

    Example:

    >>> schedule = WarmupSchedule(model_dim=256, warmup_steps=800)
    >>> round(float(schedule(799)), 6) == round(float(schedule.peak_learning_rate), 6)
    True
    """

    def __init__(self, model_dim=256, warmup_steps=800, scale=1.0):
        self.model_dim = check_positive_int("model_dim", model_dim)
        self.warmup_steps = check_positive_int("warmup_steps", warmup_steps)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
            raise ValueError(f"`scale` must be a positive number. Received: scale={scale!r}")
        self.scale = float(scale)

    @property
    def peak_learning_rate(self):
        return self.scale * self.model_dim**-0.5 * self.warmup_steps**-0.5

    def __call__(self, step):
        step = ops.cast(step, "float32") + 1.0
        rate = ops.minimum(ops.rsqrt(step), step * self.warmup_steps**-1.5)
        return self.scale * self.model_dim**-0.5 * rate

    def get_config(self):
        return {"model_dim": self.model_dim, "warmup_steps": self.warmup_steps, "scale": self.scale}
