"""How CNLE trains: teacher forcing over the inference model's weights, the paper's optimizer and loss."""

import keras
from keras import ops

from keras_labelemb.layers import AdaptiveLabelDecoder
from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
from keras_labelemb.training.optimizer_build import build_optimizer
from keras_labelemb.training.warmup_schedule import WarmupSchedule


@keras.saving.register_keras_serializable(package="keras_labelemb")
class TeacherForcing(keras.layers.Layer):
    """Runs a model's `AdaptiveLabelDecoder` with teacher forcing without adding a call of it to any graph.

    `LabelClassifier.from_model` needs the head called once, in the
    inference model; this layer calls the head's `call` directly, so the
    training model shares every weight and leaves the inference model's
    graph as it was.
    """

    def __init__(self, head, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True  # the text mask is taken (and passed on explicitly), not propagated
        if not isinstance(head, AdaptiveLabelDecoder):
            raise ValueError(f"`head` must be an AdaptiveLabelDecoder. Received: head={head!r}")
        self.head = head

    def call(self, inputs, label_sequence, mask=None, training=None):
        return self.head.call(inputs, label_sequence=label_sequence, mask=mask, training=training)

    def compute_mask(self, inputs, label_sequence=None, mask=None):
        return None

    def compute_output_spec(self, inputs, label_sequence, mask=None, training=None):
        return keras.KerasTensor(
            (inputs.shape[0], self.head.max_steps, self.head.num_classes), dtype=self.head.compute_dtype
        )

    def get_config(self):
        config = super().get_config()
        config["head"] = keras.saving.serialize_keras_object(self.head)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["head"] = keras.saving.deserialize_keras_object(config["head"])
        return cls(**config)


def cnle_training_model(model):
    """The teacher-forcing model of a `cnle` model: `{"token_ids", "label_sequence"}` -> step logits.

    Shares every weight with `model`; fit it on `x={"token_ids": ids,
    "label_sequence": seqs}`, `y=seqs` (`label_sequences(targets, max_steps)`)
    with `LabelSequenceLoss`, then predict with `model`.
    """
    from keras_labelemb.tasks.label_classifier import LabelClassifier

    classifier = LabelClassifier.from_model(model)  # the model cut once, at its decoder
    encoder, head = classifier.encoder, classifier.head
    if not isinstance(head, AdaptiveLabelDecoder):
        raise ValueError(f"`model` must end in an AdaptiveLabelDecoder. Received: head={head.name!r}")
    ids = keras.Input(shape=tuple(model.inputs[0].shape[1:]), dtype="int32", name="token_ids")
    sequence = keras.Input(shape=(head.max_steps,), dtype="int32", name="label_sequence")
    logits = TeacherForcing(head, name="teacher_forcing")(encoder(ids), sequence, mask=ops.not_equal(ids, 0))
    return keras.Model({"token_ids": ids, "label_sequence": sequence}, logits, name=f"{model.name}_teacher_forcing")


def cnle_optimizer(model_dim=256, warmup_steps=800, global_clipnorm=1.0, scale=1.0):
    """CNLE's optimizer: Adam (beta_1 0.9, beta_2 0.98, epsilon 1e-9) on `WarmupSchedule`, gradient norm clipped.

    The paper "re-scales the gradient's norm within [0, 1)": the global norm,
    clipped at `global_clipnorm`.
    """
    return keras.optimizers.Adam(
        learning_rate=WarmupSchedule(model_dim, warmup_steps, scale),
        beta_1=0.9,
        beta_2=0.98,
        epsilon=1e-9,
        global_clipnorm=global_clipnorm,
    )


def compile_cnle_training_model(training_model, optimizer=None, **compile_kwargs):
    """Compiles a `cnle_training_model` with `LabelSequenceLoss` (eq. 14) and `cnle_optimizer()` by default."""
    training_model.compile(optimizer=optimizer or cnle_optimizer(), loss=LabelSequenceLoss(), **compile_kwargs)
    return build_optimizer(training_model)  # one trace of the first training step, not two
