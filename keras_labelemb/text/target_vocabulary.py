"""Vocabulary control for tv-embedding training (Johnson & Zhang 2016, section 3.2).

Which words a tv-embedding learns to predict: the most frequent words of the
vocabulary minus function words and reserved tokens. Pure NumPy; the training
itself is `keras_labelemb.training.tv_embedding.TvEmbedding`.
"""

import numpy as np

from keras_labelemb.argument_checks import check_positive_int

#: English function words left out of the target vocabulary (vocabulary control, J&Z 2016
#: section 3.2): predicting them teaches syntax rather than topic.
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours yourself yourselves
    s t d ll m re ve don doesn didn isn wasn aren weren won wouldn shouldn couldn can't also may might must
    shall us one""".split()
)


def target_vocabulary(vocabulary, max_targets=30000, stop_words=None):
    """Maps token ids to target ids for tv-embedding training (vocabulary control).

    The target vocabulary is the `max_targets` most frequent tokens that are
    not stop words (function words) nor reserved tokens (`"<pad>"`, `"<unk>"`,
    `"<num>"` ... anything in angle brackets).

    Args:
        vocabulary: list of tokens, index = token id, most frequent first
            (as `TextVectorizer.get_vocabulary()` returns it).
        max_targets: size of the target vocabulary. Default 30,000 (the paper's).
        stop_words: tokens never used as targets (compared lower-cased).
            Default `None`: `STOP_WORDS`; pass `()` to keep every word.

    Returns:
        int32 array `(len(vocabulary),)`: the target index of each token id, or -1.

    Example:

    >>> target_vocabulary(["<pad>", "<unk>", "the", "rocket", "of", "orbit"], max_targets=5).tolist()
    [-1, -1, -1, 0, -1, 1]
    >>> target_vocabulary(["<pad>", "the", "rocket"], stop_words=()).tolist()
    [-1, 0, 1]
    """
    check_positive_int("max_targets", max_targets)
    stop = {w.lower() for w in (STOP_WORDS if stop_words is None else stop_words)}
    mapping = np.full(len(vocabulary), -1, dtype="int32")
    count = 0
    for token_id, token in enumerate(vocabulary):
        if count == max_targets:
            break
        if token.startswith("<") and token.endswith(">") or token.lower() in stop:
            continue
        mapping[token_id] = count
        count += 1
    return mapping
