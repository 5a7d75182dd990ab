"""Names that changed before the first release fail with an error naming the new one (`keras_labelemb/renamed.py`)."""

import numpy as np
import pytest

from keras_labelemb.models import cnle, document_classifier
from keras_labelemb.renamed import EMBEDDING_OPTIONS, MOVED
from keras_labelemb.text import TextVectorizer
from keras_labelemb.tuning import CNLEHyperModel, LabelHeadHyperModel


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_name_says_where_it_went(old):
    module, name = old.rsplit(".", 1)
    with pytest.raises(ImportError, match=f"{old} moved to {MOVED[old]}"):
        exec(f"from {module} import {name}")
    new_module, new_name = MOVED[old].rsplit(".", 1)
    exec(f"from {new_module} import {new_name}")  # the new place works


def test_renamed_arguments_name_their_replacement_and_the_value():
    with pytest.raises(ValueError, match=r"`output_mode` of TextVectorizer was renamed: pass flat=True.*'flat'"):
        TextVectorizer(output_mode="flat")
    vectorizer = TextVectorizer(vocabulary=["<pad>", "<unk>", "wheat"])
    with pytest.raises(ValueError, match=r"pass description_length\. Received: max_length=3"):
        vectorizer.encode_labels(["wheat"], max_length=3)
    with pytest.raises(ValueError, match=r"pass head=\{'type': 'gile', 'joint_dim': \.\.\.\}.*joint_dim=8"):
        document_classifier(10, np.array([[2, 3]]), flat=True, max_tokens=4, joint_dim=8)
    for old, new in (("encoder_units", "units"), ("attention_units", "attention_units"), ("dropout", "dropout")):
        with pytest.raises(ValueError, match=rf"`{old}` of document_classifier was renamed: pass encoder=\{{'{new}'"):
            document_classifier(10, np.array([[2, 3]]), flat=True, max_tokens=4, **{old: 8})
    with pytest.raises(TypeError, match="unexpected arguments \\['bogus'\\]"):
        document_classifier(10, np.array([[2, 3]]), flat=True, max_tokens=4, bogus=8)
    for old in ("model_dim", "num_heads", "attention_dim", "intermediate_dim", "dropout"):
        with pytest.raises(
            ValueError, match=rf"`{old}` of cnle was renamed: pass encoder=\{{'{old}': \.\.\.\}}.*{old}=8"
        ):
            cnle(10, np.array([[2, 3]]), max_tokens=4, max_steps=2, **{old: 8})
    with pytest.raises(TypeError, match="unexpected arguments \\['bogus'\\]"):
        cnle(10, np.array([[2, 3]]), max_tokens=4, max_steps=2, bogus=8)
    for old, key in EMBEDDING_OPTIONS.items():
        message = rf"`{old}` of (document_classifier|cnle) was renamed: pass embedding=\{{'{key}': \.\.\.\}}.*{old}=8"
        with pytest.raises(ValueError, match=message):
            document_classifier(10, np.array([[2, 3]]), flat=True, max_tokens=4, **{old: 8})
        if old != "embedding_dropout":  # cnle's embedding has no dropout
            with pytest.raises(ValueError, match=message):
                cnle(10, np.array([[2, 3]]), max_tokens=4, max_steps=2, **{old: 8})
    # The hypermodels pass their fixed builder arguments on: an old one names the new spec there too.
    with pytest.raises(ValueError, match=r"`embedding_dim` of document_classifier was renamed: pass embedding="):
        LabelHeadHyperModel(10, np.array([[2, 3]]), flat=True, max_tokens=4, embedding_dim=8)
    with pytest.raises(ValueError, match=r"`word_vectors` of cnle was renamed: pass embedding="):
        CNLEHyperModel(10, np.array([[2, 3]]), max_tokens=4, max_steps=2, word_vectors=np.zeros((10, 4)))
    assert vectorizer.encode_labels(["wheat"], 3).tolist() == [[2, 0, 0]]
