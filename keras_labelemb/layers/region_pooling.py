"""Max or average pooling over k equal regions of each document (Johnson & Zhang 2015, 2016)."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_positive_int
from keras_labelemb.layers.masks import zero_masked

POOLING_MODES = ("max", "average")


def region_index(mask, num_regions):
    """The region `[0, k)` of every position, counted over the unmasked positions of its row.

    Position `t` of a row with `n` unmasked positions, `r_t` of them before it,
    falls in region `floor(r_t * k / n)`: regions split each document's own
    words into `k` near-equal runs, whatever the padding around them. Masked
    positions get region `k` (in no region).

    Args:
        mask: boolean `(B, T)`.
        num_regions: `k`.

    Returns:
        int32 `(B, T)`.
    """
    valid = ops.cast(mask, "int32")
    rank = ops.cumsum(valid, axis=-1) - valid
    length = ops.sum(valid, axis=-1, keepdims=True)
    region = (rank * num_regions) // ops.maximum(length, 1)
    return ops.where(mask, region, num_regions)


@keras.saving.register_keras_serializable(package="keras_labelemb")
class RegionPooling(keras.layers.Layer):
    """Pools a sequence over `k` equal, non-overlapping regions and concatenates the results.

    The unmasked positions of each row are split in order into `k` runs of
    (near-)equal length, region `j` holding the positions `t` with
    `floor(r_t k / n) = j` (`n` unmasked positions in the row, `r_t` of them
    before `t`); each region is pooled and the `k` vectors concatenated:

        max:      p_j = max_{t in region j} h_t          (component-wise)
        average:  p_j = (1 / |region j|) sum_{t in region j} h_t
        output  = [p_0, p_1, ..., p_{k-1}]                  (B, k * d)

    Regions follow each document's own length, so the same document with more
    padding pools to exactly the same vector. Padding never wins a max and
    never counts in an average; an empty region (a document shorter than `k`
    words, or an all-padding document) pools to zeros.

    Args:
        num_regions: `k`, the number of regions. Default 1 (pool the whole
            document). Johnson & Zhang use k=1 max on IMDB/Elec, k=10 average
            on RCV1, k=10 max on 20 Newsgroups.
        mode: `"max"` (default) or `"average"`.

    Input: `(B, T, d)` with an optional boolean mask `(B, T)`.
    Output: `(B, num_regions * d)`.

    Example:

    >>> import numpy as np
    >>> h = np.arange(12, dtype="float32").reshape(1, 6, 2)
    >>> mask = np.array([[1, 1, 1, 1, 0, 0]], bool)  # 4 words, 2 padding
    >>> RegionPooling(num_regions=2, mode="max")(h, mask=mask).numpy().tolist()
    [[2.0, 3.0, 6.0, 7.0]]
    >>> RegionPooling(num_regions=2, mode="average")(h, mask=mask).numpy().tolist()
    [[1.0, 2.0, 5.0, 6.0]]

    Reference: Johnson & Zhang, "Effective use of word order for text
    categorization with CNNs", NAACL 2015; "Supervised and semi-supervised
    text categorization using LSTM for region embeddings", ICML 2016, section 2.3.
    """

    def __init__(self, num_regions=1, mode="max", **kwargs):
        super().__init__(**kwargs)
        self.num_regions = check_positive_int("num_regions", num_regions)
        self.mode = check_choice("mode", mode, POOLING_MODES)
        self.supports_masking = True

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ValueError(
                "`inputs` must have shape (B, T, d) with a known feature size d. "
                f"Received: inputs with shape {tuple(input_shape)}"
            )

    def call(self, inputs, mask=None):
        if mask is None:
            mask = ops.ones(ops.shape(inputs)[:2], dtype="bool")
        mask = ops.cast(mask, "bool")
        regions = region_index(mask, self.num_regions)
        if self.mode == "average":
            inputs = zero_masked(inputs, mask)  # a NaN at a padding position must not reach the einsum
            # (B, T, k): which region each position belongs to; masked positions belong to none.
            member = ops.one_hot(regions, self.num_regions + 1, dtype=inputs.dtype)[..., : self.num_regions]
            sums = ops.einsum("btk,btd->bkd", member, inputs)
            counts = ops.sum(member, axis=1)[..., None]
            pooled = sums / ops.where(counts > 0, counts, ops.ones_like(counts))
        else:
            # One segment per (document, region) plus one per document for its padding, which is
            # dropped: a single pass over the sequence instead of k masked maxima.
            k, dim = self.num_regions, inputs.shape[-1]
            batch = ops.shape(inputs)[0]
            offsets = ops.expand_dims(ops.arange(batch, dtype="int32") * (k + 1), 1)
            segments = ops.reshape(offsets + regions, (-1,))
            maxima = ops.segment_max(ops.reshape(inputs, (-1, dim)), segments, num_segments=batch * (k + 1))
            maxima = ops.reshape(maxima, (-1, k + 1, dim))[:, :k]
            # An empty region (segment_max gives the lowest float there) pools to zeros.
            nonempty = ops.any(ops.equal(ops.expand_dims(regions, -1), ops.arange(k, dtype="int32")), axis=1)
            pooled = ops.where(ops.expand_dims(nonempty, -1), maxima, ops.zeros_like(maxima))
        return ops.reshape(pooled, (-1, self.num_regions * inputs.shape[-1]))

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.num_regions * input_shape[-1])

    def get_config(self):
        config = super().get_config()
        config.update(num_regions=self.num_regions, mode=self.mode)
        return config
