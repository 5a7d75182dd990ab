"""Text for people: short reprs in errors, tokens as strings."""

from keras_labelemb.display_text import short_repr, token_text


def test_short_repr_cuts_long_values_and_keeps_short_ones():
    assert short_repr([1, 2]) == "[1, 2]"
    text = short_repr(list(range(100)), limit=20)
    assert len(text) == 20 and text.endswith("...") and text.startswith("[0, 1, 2")


def test_token_text_decodes_bytes_and_maps_none_to_empty():
    assert token_text(b"caf\xc3\xa9") == "café"
    assert token_text(b"\xff") == "\ufffd"  # undecodable bytes do not raise
    assert token_text(None) == ""
    assert token_text(7) == "7"
