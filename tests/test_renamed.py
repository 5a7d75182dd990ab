"""Names that changed before the first release fail with an error naming the new one (`keras_labelemb/renamed.py`)."""

import pytest

from keras_labelemb.renamed import MOVED
from keras_labelemb.text import TextVectorizer


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
    assert vectorizer.encode_labels(["wheat"], 3).tolist() == [[2, 0, 0]]
