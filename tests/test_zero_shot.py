"""Zero-shot helpers warn about kept labels that no training document carries (aliases of unseen labels)."""

import warnings

import pytest

from keras_labelemb.datasets import (
    TextClassificationData,
    labels_without_training_documents,
    remove_unseen_from_train,
    restrict_labels,
    zero_shot_split,
)


def aliased_data():
    # "soy-oil" (1) only ever appears beside "soybean" (2): holding out soybean leaves soy-oil untrained.
    return TextClassificationData(
        train_texts=["wheat up", "soybean and soy oil", "soybean crush", "wheat down", "corn"],
        train_labels=[[0], [1, 2], [2], [0], [3]],
        test_texts=["soybean", "wheat", "soy oil"],
        test_labels=[[2], [0], [1]],
        label_names=["wheat", "soy-oil", "soybean", "corn"],
        label_descriptions=["wheat", "soy oil", "soybean", "corn"],
        train_ids=[f"train/{i}" for i in range(5)],
        test_ids=[f"test/{i}" for i in range(3)],
    )


def test_warns_and_names_the_kept_label_left_without_training_documents():
    data = aliased_data()
    with pytest.warns(UserWarning, match=r"remove_unseen_from_train: 1 kept label\(s\) .*: soy-oil\. "):
        filtered = remove_unseen_from_train(data, [2])
    assert labels_without_training_documents(filtered) == [1, 2]  # soybean is held out, soy-oil lost its only doc
    with pytest.warns(UserWarning, match=r"restrict_labels: 1 kept label\(s\) .*: soy-oil\. "):
        restrict_labels(filtered, [0, 1, 3])


def test_the_suggested_fix_silences_it_and_clean_splits_never_warn():
    data = aliased_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        remove_unseen_from_train(data, [3])  # corn held out: every other label keeps a document
    with pytest.warns(UserWarning):
        kept = restrict_labels(remove_unseen_from_train(data, [2]), [0, 1, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The fix the message suggests: drop the kept labels without training documents.
        untrained = set(labels_without_training_documents(kept))
        fixed = restrict_labels(kept, [j for j in range(kept.num_labels) if j not in untrained])
    assert fixed.label_names == ["wheat", "corn"]


def test_an_evaluation_set_of_unseen_labels_does_not_warn():
    data = aliased_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Held-out labels restricted for evaluation: no training text is left, nothing trains on it.
        restricted = restrict_labels(remove_unseen_from_train(data, [3]), [3], drop_empty=True)
    assert restricted.train_texts == [] and restricted.num_labels == 1


def test_the_demo_protocol_is_clean():
    from keras_labelemb.datasets import load_demo

    data, unseen = load_demo()
    seen = [j for j in range(data.num_labels) if j not in unseen]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        restrict_labels(remove_unseen_from_train(data, unseen), seen)
    assert zero_shot_split(data, seed=0)  # the split helper itself never warns
