"""Zero-shot helpers warn about kept labels that no training document carries (aliases of unseen labels)."""

import warnings

import numpy as np
import pytest
from datasets_helpers import _small_data

from benchmarks.datasets.zero_shot_split import zero_shot_split
from keras_labelemb.datasets import TextClassificationData, load_demo, remove_unseen_from_train, restrict_labels
from keras_labelemb.datasets.zero_shot import labels_without_training_documents


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

    data, unseen = load_demo()
    seen = [j for j in range(data.num_labels) if j not in unseen]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        restrict_labels(remove_unseen_from_train(data, unseen), seen)
    assert zero_shot_split(data, seed=0)  # the split helper itself never warns


def test_reuters_zero_shot_split(reuters):
    seen, unseen = zero_shot_split(reuters, unseen_fraction=0.2, exclude_top=10, seed=0)
    assert (seen, unseen) == zero_shot_split(reuters, seed=0)
    assert len(unseen) == 18 and sorted(seen + unseen) == list(range(90))
    counts = reuters.label_counts("train")
    top10 = set(np.argsort(-counts, kind="stable")[:10].tolist())
    assert {reuters.label_names[j] for j in top10} >= {"earn", "acq", "money-fx", "grain"}
    assert not top10 & set(unseen)
    assert zero_shot_split(reuters, seed=1)[1] != unseen

    # Seed 0 holds out groundnut, palm-oil and sun-oil; their aliases keep no training document.
    with pytest.warns(UserWarning, match=r"4 kept label\(s\) .*: cotton-oil, groundnut-oil, lin-oil, palmkernel\."):
        filtered = remove_unseen_from_train(reuters, unseen)
    assert not any(set(doc) & set(unseen) for doc in filtered.train_labels)
    expected = sum(1 for doc in reuters.train_labels if not set(doc) & set(unseen))
    assert len(filtered.train_texts) == expected
    assert filtered.test_labels == reuters.test_labels


def test_restrict_labels_and_remove_unseen():
    data = _small_data().validation_split(4, seed=0)
    filtered = remove_unseen_from_train(data, [2])
    assert not any(2 in doc for doc in filtered.train_labels + filtered.val_labels)
    assert filtered.test_labels == data.test_labels
    assert len(filtered.train_texts) + len(filtered.val_texts) == 6

    sub = restrict_labels(data, [2, 0])
    assert sub.label_names == ["c", "a"] and sub.label_descriptions == ["c: third", "a: first"]
    assert sub.test_labels == [[1], [0], [0]]
    assert len(sub.test_texts) == 3
    dropped = restrict_labels(data, [1], drop_empty=True)
    assert dropped.test_ids == ["test/1"] and dropped.test_labels == [[0]]
    with pytest.raises(ValueError, match="unique"):
        restrict_labels(data, [0, 0])
    with pytest.raises(ValueError, match="out of range"):
        restrict_labels(data, [5])


def test_zero_shot_split_arguments():
    data = _small_data()
    with pytest.raises(ValueError, match="unseen_fraction"):
        zero_shot_split(data, unseen_fraction=1.0)
    with pytest.raises(ValueError, match="Cannot hold out"):
        zero_shot_split(data, unseen_fraction=0.5, exclude_top=3)
    seen, unseen = zero_shot_split(data, unseen_fraction=0.3, exclude_top=1)
    assert len(unseen) == 1 and unseen[0] != 0  # Label 0 is the most frequent (ties by index).


def test_demo_unseen_labels_in_test_not_in_filtered_train(demo):
    data, unseen = demo
    test_counts = data.label_counts("test")
    assert all(test_counts[j] > 0 for j in unseen)
    filtered = remove_unseen_from_train(data, unseen)
    assert not any(set(doc) & set(unseen) for doc in filtered.train_labels)
    assert 1800 <= len(filtered.train_texts) <= 2300
    seen = [j for j in range(data.num_labels) if j not in unseen]
    assert (filtered.label_counts("train")[seen] > 100).all()


def test_demo_zero_shot_tfidf_baseline(demo):
    """Lexical matching of documents to descriptions ranks unseen labels far above chance."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics import label_ranking_average_precision_score as lrap

    data, unseen = demo
    train = remove_unseen_from_train(data, unseen)
    vectorizer = TfidfVectorizer(sublinear_tf=True).fit(train.train_texts + data.label_descriptions)
    evaluation = restrict_labels(data, unseen, drop_empty=True)
    y = evaluation.multi_hot("test")
    docs = vectorizer.transform(evaluation.test_texts)
    labels = vectorizer.transform(evaluation.label_descriptions)
    tfidf = lrap(y, (docs @ labels.T).toarray())
    rng = np.random.RandomState(0)
    chance = np.mean([lrap(y, rng.rand(*y.shape)) for _ in range(50)])

    y_all = data.multi_hot("test")
    scores_all = (vectorizer.transform(data.test_texts) @ vectorizer.transform(data.label_descriptions).T).toarray()
    tfidf_all = lrap(y_all, scores_all)
    chance_all = np.mean([lrap(y_all, rng.rand(*y_all.shape)) for _ in range(20)])
    print(
        f"\ndemo zero-shot LRAP, {len(y)} test docs with an unseen label, 4 unseen labels: "
        f"tf-idf {tfidf:.3f}, random {chance:.3f}; all 600 test docs, all 16 labels: "
        f"tf-idf {tfidf_all:.3f}, random {chance_all:.3f}"
    )
    assert len(y) >= 150
    assert tfidf > 0.85 and tfidf > chance + 0.3
    assert tfidf_all > chance_all + 0.4
