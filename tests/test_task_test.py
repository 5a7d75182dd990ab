"""Tests of `task_test`: `run_task_test` catches a classifier whose round trip loses something."""

import pytest
from task_helpers import LABELS, texts_and_targets

from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.testing import run_task_test


@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_run_task_test_fails_when_a_reload_changes_the_scores(monkeypatch):
    original = LabelClassifier.from_config

    def forgetful(config):  # a loaded classifier whose head lost its trained weights
        classifier = original(config)
        classifier.load_own_variables = lambda store: None
        classifier.head.load_own_variables = lambda store: None
        return classifier

    monkeypatch.setattr(LabelClassifier, "from_config", classmethod(lambda cls, config: forgetful(config)))
    texts, targets = texts_and_targets(16)
    with pytest.raises(AssertionError):
        run_task_test("wan", LABELS, texts, targets, fresh_process=False, embedding_dim=8, max_tokens=12)
