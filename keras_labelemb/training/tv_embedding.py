"""LSTM tv-embeddings learned from unlabeled text (Johnson & Zhang 2016, section 3).

A one-hot LSTM reads a document and, at every word, predicts the bag of the
next k words (forward) or of the previous k words (backward). What it learns
to carry in its state (a two-view embedding of the text region read so far)
is then given to a supervised `RegionLSTM` as additional, frozen input:

    tv = train_tv_embeddings(unlabeled_ids, vocabulary)        # forward + backward LSTMs
    region = RegionLSTM(500, vocabulary_size, side_encoders=[tv.encoder])

Which words are predicted (vocabulary control) is `keras_labelemb.text.target_vocabulary`.
"""

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_positive_int
from keras_labelemb.layers import RegionLSTM
from keras_labelemb.training.optimizer_build import build_optimizer


def window_targets(ids, target_ids, window, backward=False):
    """Target indices `(B, T, window)` of the next (previous) words, -1 for none; repeats marked -1."""
    k = window
    padded = ops.pad(ids, ((0, 0), (k, k)))
    length = ids.shape[1]
    if length is None:
        raise ValueError("TvEmbedding needs a known sequence length T. Received: ids with shape (B, None)")
    starts = [k - s if backward else k + s for s in range(1, k + 1)]
    words = ops.stack([padded[:, start : start + length] for start in starts], axis=-1)
    targets = ops.take(ops.convert_to_tensor(target_ids, "int32"), words, axis=0)
    # A bag, not a count: a word repeated in the window is one positive.
    same = ops.equal(ops.expand_dims(targets, -1), ops.expand_dims(targets, -2))
    earlier = ops.convert_to_tensor(np.tril(np.ones((k, k), bool), -1))
    repeated = ops.any(ops.logical_and(same, earlier), axis=-1)
    return ops.where(ops.logical_or(repeated, targets < 0), -1, targets)


def window_target_counts(ids, target_ids, window, backward=False):
    """How many unpadded positions have each target word among their next (previous) `window` words.

    A word repeated in a window counts once there (the targets are a bag), as
    in `TvEmbedding`'s objective.

    Args:
        ids: int token ids `(N, T)`, 0 = padding.
        target_ids: int array `(vocabulary_size,)`, target index of each token id or -1.
        window: `k`, how many next (previous) words.
        backward: count the previous words instead of the next ones.

    Returns:
        `(counts, positions)`: float64 counts `(num_targets,)` and the number of
        unpadded positions.

    Example:

    >>> counts, n = window_target_counts(np.array([[1, 2, 1, 3, 0]]), np.array([-1, 0, 1, 2]), window=2)
    >>> counts.tolist(), n  # next 2 words of each of the 4 words: {1, 0}, {0, 2}, {2}, {}
    ([2.0, 1.0, 2.0], 4)
    """
    ids = np.asarray(ids)
    targets = ops.convert_to_numpy(window_targets(ops.convert_to_tensor(ids, "int32"), target_ids, window, backward))
    keep = (targets >= 0) & (ids != 0)[..., None]
    counts = np.bincount(targets[keep], minlength=int(np.max(target_ids)) + 1).astype("float64")
    return counts, int((ids != 0).sum())


@keras.saving.register_keras_serializable(package="keras_labelemb")
class TvEmbedding(keras.Model):
    """Trains one-hot LSTM tv-embeddings on unlabeled token ids (J&Z 2016, section 3).

    The encoder is a `RegionLSTM(units, gates="full", pooling=None)` (the paper
    keeps the input and output gates here); `direction="bidirectional"` trains
    the paper's two LSTMs, forward and backward, at once (independent weights
    and objectives, one loop). At each unpadded position `t` the output `h_t`
    of a direction scores target words linearly, `p_t[j] = w_j . h_t + b_j`,
    and the weighted square loss (J&Z 2015b; 2016 section 3.4)

        L = sum_t [ sum_{j in z_t} (1 - p_t[j])^2  +  negative_weight * sum_{j in N} (0 - p_t[j])^2 ]

    is minimised, where `z_t` is the bag (set) of target words among the next
    `window` words (forward) or the previous `window` words (backward), and `N`
    holds `num_negatives` target words drawn uniformly per batch (shared by all
    positions; a drawn word that is in `z_t` counts only as positive). Giving
    weight only to the positives and to sampled zeros is the "negative
    sampling effect" of the paper's weights `alpha_ij`: the loss costs
    `O(window + num_negatives)` per word instead of `O(|target vocabulary|)`.
    The loss is averaged over unpadded positions and added with `add_loss`, so
    `compile(optimizer)` needs no `loss` and `fit(ids)` needs no targets.

    Targets are restricted by `target_ids` (see
    `keras_labelemb.text.target_vocabulary`): the 30K most frequent words
    minus function words.

    Args:
        vocabulary_size: number of token ids (0 = padding).
        target_ids: int array `(vocabulary_size,)`, target index of each token
            id or -1 (not a target).
        units: LSTM units per direction. Default 100 (the paper's).
        direction: `"forward"`, `"backward"` or `"bidirectional"` (default).
        window: `k`, how many next (previous) words to predict. Default 5
            (the paper's; 20 for long topic documents).
        num_negatives: sampled zero targets per batch. Default 2000.
        negative_weight: weight of each sampled zero target. Default 0.05.
            The expected objective depends on `num_negatives * negative_weight`
            only; the variance does not. With 100 zeros of weight 1 (shared by
            the batch), each word is drawn once in hundreds of batches and then
            gets a large push down from every position at once: on 20
            Newsgroups the loss rose during training, with Adam or SGD. Many
            zeros of small weight (same expectation, far less variance) let
            it fall below the context-free bar (`context_free_scores`).
        chop_size: training-time chopping of the encoder (see `RegionLSTM`);
            chopping also cuts the context the LSTM has read, not the targets
            (targets always come from the whole document).
        chop_overlap: tokens shared by consecutive chopped pieces (see `RegionLSTM`).
        seed: seed of the negative sampler.

    Call: token ids `(B, T)` -> the encoder's per-step outputs `(B, T, D*units)`.

    Example:

    >>> import numpy as np
    >>> from keras_labelemb.text.target_vocabulary import target_vocabulary
    >>> ids = np.random.default_rng(0).integers(0, 30, size=(8, 12))
    >>> targets = target_vocabulary([f"w{i}" for i in range(30)], max_targets=20)
    >>> tv = TvEmbedding(30, targets, units=4, window=2, num_negatives=5, seed=0)
    >>> tv.compile(keras.optimizers.Adam(1e-2))
    >>> history = tv.fit(ids, epochs=2, batch_size=4, verbose=0)
    >>> region = RegionLSTM(3, 30, num_regions=2, side_encoders=[tv.encoder])
    >>> tuple(region(ids).shape), tv.encoder.trainable
    ((8, 12), False)

    Reference: Johnson & Zhang, ICML 2016, sections 3.1-3.4; JZ, NIPS 2015 (tv-embeddings).
    """

    def __init__(
        self,
        vocabulary_size,
        target_ids,
        units=100,
        direction="bidirectional",
        window=5,
        num_negatives=2000,
        negative_weight=0.05,
        chop_size=None,
        chop_overlap=0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size)
        target_ids = np.asarray(target_ids)
        if target_ids.shape != (vocabulary_size,) or not np.issubdtype(target_ids.dtype, np.integer):
            raise ValueError(
                "`target_ids` must be an int array with one entry per token id "
                f"({vocabulary_size}). Received: target_ids with shape {target_ids.shape} and dtype {target_ids.dtype}"
            )
        self.num_targets = int(target_ids.max()) + 1
        if self.num_targets < 1:
            raise ValueError("`target_ids` has no target word (every entry is -1).")
        self.target_ids = target_ids.astype("int32")
        self.units = check_positive_int("units", units)
        self.direction = check_choice("direction", direction, ("forward", "backward", "bidirectional"))
        self.window = check_positive_int("window", window)
        if isinstance(num_negatives, bool) or not isinstance(num_negatives, int) or num_negatives < 0:
            raise ValueError(
                f"`num_negatives` must be a non-negative integer. Received: num_negatives={num_negatives!r}"
            )
        self.num_negatives = num_negatives
        if not isinstance(negative_weight, (int, float)) or negative_weight < 0:
            raise ValueError(f"`negative_weight` must be a number >= 0. Received: negative_weight={negative_weight!r}")
        self.negative_weight = float(negative_weight)
        self.chop_size = chop_size
        self.chop_overlap = chop_overlap
        self.seed = seed
        self.encoder = RegionLSTM(
            units,
            vocabulary_size,
            gates="full",
            direction=direction,
            pooling=None,
            chop_size=chop_size,
            chop_overlap=chop_overlap,
            name="tv_encoder",
        )
        self.seed_generator = keras.random.SeedGenerator(seed)
        self.directions = self.encoder.directions
        self.output_kernels = [
            self.add_weight(
                shape=(self.num_targets, units),
                initializer=keras.initializers.RandomNormal(stddev=0.01),
                name=f"{name}_output_kernel",
            )
            for name in self.directions
        ]
        self.output_biases = [
            self.add_weight(shape=(self.num_targets,), initializer="zeros", name=f"{name}_output_bias")
            for name in self.directions
        ]

    def build(self, input_shape):
        self.encoder.build(input_shape)
        self.built = True

    def context_free_scores(self, ids):
        """The best scores that ignore the context, per direction, and the loss they reach.

        With every `h_t` at zero the weighted square loss is minimised, word by
        word, at `b_j = c_j / (c_j + n * a * m / |targets|)` (`c_j` positions
        with word `j` in their window, `n` positions, `m` sampled zeros per
        batch, each drawn with probability `1 / |targets|` and weighing
        `a = negative_weight`). That loss (expected over the draws, summed over
        directions) is the bar a trained tv-embedding must clear: below it the
        LSTM has learned something about the context.

        Args:
            ids: int token ids `(N, T)` of the unlabeled documents.

        Returns:
            `(biases, loss)`: a list with one `(num_targets,)` array per
            direction, and the expected loss per position with those scores.
        """
        rate = self.negative_weight * self.num_negatives / self.num_targets
        biases, loss = [], 0.0
        for name in self.directions:
            counts, positions = window_target_counts(ids, self.target_ids, self.window, backward=name == "backward")
            b = counts / np.maximum(counts + positions * rate, 1e-12)
            biases.append(b)
            loss += (np.sum(counts * (1 - b) ** 2) + positions * rate * np.sum(b**2)) / max(positions, 1)
        return biases, float(loss)

    def initialize_output_biases(self, ids):
        """Sets each direction's output biases to `context_free_scores(ids)`; returns their loss.

        Starting there (instead of at 0, the all-zero prediction) the LSTM has
        only to learn what the context adds.
        """
        biases, loss = self.context_free_scores(ids)
        for variable, b in zip(self.output_biases, biases):
            variable.assign(b.astype(variable.dtype))
        return loss

    def _window_targets(self, ids, backward):
        return window_targets(ids, self.target_ids, self.window, backward)

    def objective(self, ids, sequences, negatives):
        """The weighted square loss (see the class docstring) for given sampled `negatives` `(m,)`."""
        ids = ops.cast(ids, "int32")
        position = ops.cast(ops.not_equal(ids, 0), "float32")
        sequences = ops.cast(sequences, "float32")
        total = 0.0
        for d, name in enumerate(self.directions):
            h = sequences[..., d * self.units : (d + 1) * self.units]
            kernel, bias = ops.cast(self.output_kernels[d], "float32"), ops.cast(self.output_biases[d], "float32")
            targets = self._window_targets(ids, backward=name == "backward")
            positive = ops.cast(targets >= 0, "float32") * ops.expand_dims(position, -1)
            index = ops.maximum(targets, 0)
            scores = ops.sum(ops.expand_dims(h, 2) * ops.take(kernel, index, axis=0), axis=-1) + ops.take(bias, index)
            total = total + ops.sum(positive * ops.square(1.0 - scores))
            if self.num_negatives:
                negative_scores = ops.matmul(h, ops.transpose(ops.take(kernel, negatives, axis=0)))
                negative_scores = negative_scores + ops.take(bias, negatives)
                hit = ops.any(ops.equal(ops.expand_dims(targets, -1), negatives), axis=2)  # (B, T, m)
                weight = ops.expand_dims(position, -1) * (1.0 - ops.cast(hit, "float32"))
                total = total + self.negative_weight * ops.sum(weight * ops.square(negative_scores))
        return total / ops.maximum(ops.sum(position), 1.0)

    def call(self, inputs, training=None):
        ids = ops.cast(inputs, "int32")
        sequences = self.encoder(ids, training=training)
        negatives = keras.random.randint(
            (max(self.num_negatives, 1),), 0, self.num_targets, seed=self.seed_generator, dtype="int32"
        )
        self.add_loss(self.objective(ids, sequences, negatives))
        return sequences

    def compute_output_shape(self, input_shape):
        return self.encoder.compute_output_shape(input_shape)

    def get_config(self):
        return {
            "name": self.name,
            "vocabulary_size": self.vocabulary_size,
            "target_ids": self.target_ids.tolist(),
            "units": self.units,
            "direction": self.direction,
            "window": self.window,
            "num_negatives": self.num_negatives,
            "negative_weight": self.negative_weight,
            "chop_size": self.chop_size,
            "chop_overlap": self.chop_overlap,
            "seed": self.seed,
        }


def train_tv_embeddings(
    ids,
    vocabulary,
    units=100,
    direction="bidirectional",
    window=5,
    max_targets=30000,
    stop_words=None,
    num_negatives=2000,
    negative_weight=0.05,
    chop_size=50,
    epochs=1,
    batch_size=50,
    optimizer=None,
    jit_compile="auto",
    seed=0,
    verbose=2,
    initialize_biases=True,
):
    """Learns LSTM tv-embeddings from unlabeled token ids; returns the trained `TvEmbedding`.

    Its `encoder` (a full-gate `RegionLSTM` with `pooling=None`) is what a
    supervised model takes as frozen side input:
    `RegionLSTM(..., side_encoders=[tv.encoder])`.

    Args:
        ids: int token ids `(N, T)` of the unlabeled documents (0 = padding).
        vocabulary: the token list (index = id, most frequent first), for the
            target vocabulary (`keras_labelemb.text.target_vocabulary`); or an
            int array of target ids (one per token id, -1 for none).
        units: LSTM units per direction (see `TvEmbedding`).
        direction: which LSTMs are trained (see `TvEmbedding`).
        window: how many next (previous) words are targets (see `TvEmbedding`).
        num_negatives: sampled negative targets per region (see `TvEmbedding`).
        negative_weight: the weight of each negative (see `TvEmbedding`).
        max_targets: the size of the target vocabulary (`target_vocabulary`).
        stop_words: words never predicted (`target_vocabulary`; None: its `STOP_WORDS`).
        chop_size: training-time chopping of the encoder. Default 50.
        epochs: passed to `fit`. Default 1.
        batch_size: passed to `fit`. Default 50.
        optimizer: default `keras.optimizers.RMSprop(1e-3)` (the paper used
            rmsprop or SGD with momentum).
        jit_compile: passed to `compile`.
        seed: seeds the initial weights and the negative sampler.
        verbose: passed to `fit`.
        initialize_biases: start the output biases at the best context-free
            scores (`TvEmbedding.initialize_output_biases`; their loss is kept
            as `context_free_loss` on the returned model). Default True.

    Returns:
        The trained `TvEmbedding`; its `history` attribute holds the losses.
    """
    ids = np.asarray(ids)
    vocabulary_size = len(vocabulary)
    if isinstance(vocabulary, np.ndarray) and np.issubdtype(vocabulary.dtype, np.integer):
        targets = vocabulary
    else:
        # Imported here, not at the top: `keras_labelemb.text` imports TensorFlow and
        # tensorflow-text, and TvEmbedding itself runs under any Keras backend.
        from keras_labelemb.text.target_vocabulary import target_vocabulary

        targets = target_vocabulary(list(vocabulary), max_targets, stop_words)
    keras.utils.set_random_seed(seed)
    model = TvEmbedding(
        vocabulary_size,
        targets,
        units=units,
        direction=direction,
        window=window,
        num_negatives=num_negatives,
        negative_weight=negative_weight,
        chop_size=chop_size,
        seed=seed,
    )
    if initialize_biases:
        model.context_free_loss = model.initialize_output_biases(ids)
    model.compile(optimizer or keras.optimizers.RMSprop(1e-3), jit_compile=jit_compile)
    model.build((None,) + ids.shape[1:])  # its weights and the optimizer's before the first trace, not inside it
    build_optimizer(model)
    model.history = model.fit(ids, batch_size=batch_size, epochs=epochs, verbose=verbose)
    return model
