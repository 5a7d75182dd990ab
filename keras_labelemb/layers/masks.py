"""Masking helpers shared by the layers: masked positions never influence a result."""

from keras import ops


def zero_masked(inputs, mask):
    """`inputs` with every masked position set to 0 by selection, not multiplication.

    Multiplying by a 0/1 mask keeps a NaN or inf at a masked position
    (NaN * 0 = NaN) and lets it reach the output and the gradients; a select
    drops it. `mask` is `inputs.shape[:-1]` (or None: nothing masked).
    """
    if mask is None:
        return inputs
    keep = ops.expand_dims(ops.cast(mask, "bool"), -1)
    return ops.where(keep, inputs, ops.zeros_like(inputs))


def masked_softmax(scores, mask):
    """Softmax over the last axis that ignores masked positions.

    A row whose positions are all masked gets all-zero weights (not NaN), so
    attention over an empty sentence or document pools to a zero vector.
    """
    if mask is None:
        return ops.softmax(scores, axis=-1)
    mask = ops.cast(mask, scores.dtype)
    # Subtract the max over unmasked positions only, for stability.
    lowest = ops.cast(-1e4 if scores.dtype == "float16" else -1e9, scores.dtype)
    shifted = scores - ops.max(ops.where(mask > 0, scores, lowest), axis=-1, keepdims=True)
    exp = ops.exp(ops.minimum(shifted, 0.0)) * mask
    total = ops.sum(exp, axis=-1, keepdims=True)
    # Not `maximum(total, eps)`: XLA on CPU computes a broadcast float16 divide as x * (1/y),
    # and 1/eps overflows float16 for any eps below ~1.5e-5 (0 * inf = NaN for an empty row).
    # An empty row has exp == 0 everywhere anyway.
    return exp / ops.where(total > 0, total, ops.ones_like(total))
