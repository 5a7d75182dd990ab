"""The benchmarks' seen / unseen label draw: which labels a zero-shot split holds out (not part of the package:
a user knows which labels are new; `keras_labelemb.datasets.remove_unseen_from_train` and `restrict_labels`
build the split from them)."""

import numpy as np

from keras_labelemb.argument_checks import check_positive_int


def zero_shot_split(data, unseen_fraction=0.2, exclude_top=10, seed=0, num_unseen=None, min_test_documents=1):
    """Chooses held-out ("unseen") labels, deterministically.

    `round(unseen_fraction * num_labels)` labels (or `num_unseen`) are drawn
    (numpy `RandomState(seed)`) among the candidates: every label except the
    `exclude_top` most frequent ones by training count (ties broken by
    index), and except labels that fewer than `min_test_documents` test
    documents carry (by default: none; they could not be evaluated).

    Args:
        data: a `TextClassificationData`.
        unseen_fraction: fraction of all labels to hold out, in (0, 1).
            Defaults to 0.2.
        exclude_top: how many of the most frequent labels always stay seen.
            Defaults to 10.
        seed: random seed. Defaults to 0.
        num_unseen: how many labels to hold out, instead of
            `unseen_fraction` (which is then ignored). Defaults to None.
        min_test_documents: the fewest test documents a held-out label must
            have. Defaults to 1.

    Returns:
        `(seen, unseen)`: two sorted lists of label indices that partition
        `range(data.num_labels)`.
    """
    if num_unseen is None and not 0.0 < unseen_fraction < 1.0:
        raise ValueError(f"`unseen_fraction` must be in (0, 1). Received: unseen_fraction={unseen_fraction}")
    if int(exclude_top) != exclude_top or exclude_top < 0:
        raise ValueError(f"`exclude_top` must be a non-negative integer. Received: exclude_top={exclude_top}")
    check_positive_int("num_unseen", num_unseen, allow_none=True)
    check_positive_int("min_test_documents", min_test_documents)
    num_labels = data.num_labels
    train_counts = data.label_counts("train")
    test_counts = data.label_counts("test")
    by_frequency = sorted(range(num_labels), key=lambda j: (-train_counts[j], j))
    top = set(by_frequency[: int(exclude_top)])
    candidates = [j for j in range(num_labels) if j not in top and test_counts[j] >= min_test_documents]
    if num_unseen is None:
        count = max(1, int(round(unseen_fraction * num_labels)))
    else:
        count = int(num_unseen)
    if count > len(candidates):
        in_test = "occur in the test split" if min_test_documents == 1 else f"have {min_test_documents}+ test documents"
        raise ValueError(
            f"Cannot hold out {count} labels: only {len(candidates)} labels are outside the "
            f"top {exclude_top} and {in_test}."
        )
    chosen = np.random.RandomState(seed).choice(len(candidates), size=count, replace=False)
    unseen = sorted(candidates[i] for i in chosen)
    unseen_set = set(unseen)
    seen = [j for j in range(num_labels) if j not in unseen_set]
    return seen, unseen
