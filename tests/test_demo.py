"""Tests of `demo`."""

import hashlib
import json

import numpy as np

from keras_labelemb.datasets import load_demo

DEMO_FINGERPRINT = "52de346d588f986722f3e365a202550dab837b91443f24d1f38a515c3b97963a"


def _fingerprint(data):
    payload = [
        data.train_texts,
        data.train_labels,
        data.test_texts,
        data.test_labels,
        data.label_names,
        data.label_descriptions,
    ]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()


def test_demo_is_deterministic(demo):
    data, unseen = demo
    again, unseen_again = load_demo()
    assert again == data and unseen_again == unseen
    assert _fingerprint(data) == DEMO_FINGERPRINT
    other, _ = load_demo(num_train=50, num_test=10, seed=1)
    assert other.train_texts != data.train_texts[:50]


def test_demo_sizes_and_labels(demo):
    data, unseen = demo
    assert len(data.train_texts) == 3000 and len(data.test_texts) == 600
    assert data.num_labels == 16
    assert unseen == [3, 7, 11, 15]
    assert [data.label_names[j] for j in unseen] == ["swimming", "unemployment", "marine-biology", "theatre"]
    for labels in data.train_labels + data.test_labels:
        assert 1 <= len(labels) <= 3 and labels == sorted(set(labels))
    words = np.array([len(t.split()) for t in data.train_texts + data.test_texts])
    assert 90 <= words.mean() <= 200 and words.min() >= 40
    assert all(t.count(". ") >= 5 for t in data.train_texts[:100])
    assert (data.label_counts("test") >= 25).all()
    for name, description in zip(data.label_names, data.label_descriptions):
        assert description.startswith(name.replace("-", " ") + ": ")
        assert len(description.split()) >= 10


def test_demo_unseen_descriptions_share_words(demo):
    """Unseen descriptions share words with their family's seen labels and documents."""
    data, unseen = demo

    def content(text):
        return {w.strip(".,:()").lower() for w in text.split()} - {
            "the",
            "and",
            "of",
            "in",
            "a",
            "to",
            "on",
            "for",
            "with",
            "from",
            "or",
            "by",
            "at",
        }

    for j in unseen:
        family = range(4 * (j // 4), 4 * (j // 4) + 4)
        described = content(data.label_descriptions[j])
        siblings = set().union(*(content(data.label_descriptions[k]) for k in family if k != j))
        assert described & siblings, data.label_names[j]
        docs = [t for t, labels in zip(data.test_texts, data.test_labels) if j in labels]
        share = np.mean([len(described & content(t)) >= 2 for t in docs])
        assert share > 0.85, (data.label_names[j], share)
