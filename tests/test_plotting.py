import numpy as np
import pytest

from keras_labelemb.plotting import document_tokens, plot_attention

VOCAB = ["<pad>", "<unk>", "wheat", "prices", "rose", "gold", "fell"]


def test_document_tokens_drops_padding():
    ids = np.array([[2, 3, 4, 0], [5, 6, 0, 0], [0, 0, 0, 0]])
    assert document_tokens(VOCAB, ids) == [["wheat", "prices", "rose"], ["gold", "fell"]]
    assert document_tokens(VOCAB, np.array([2, 1, 0, 0])) == ["wheat", "<unk>"]


def _texts(figure):
    return [t.get_text() for ax in figure.axes for t in ax.texts]


def test_hierarchical_plot_is_a_png_with_only_real_words(tmp_path):
    ids = np.array([[2, 3, 4, 0], [5, 6, 0, 0]])
    word_scores = np.array([[0.2, 0.3, 0.5, 0.0], [0.9, 0.1, 0.0, 0.0]])
    path = tmp_path / "attention.png"
    figure = plot_attention(document_tokens(VOCAB, ids), word_scores, np.array([0.7, 0.3]), path=str(path),
                            title="t", label_scores=[("grain", 0.9), ("gold", 0.2)])
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    drawn = _texts(figure)
    for word in ("wheat", "prices", "rose", "gold", "fell"):
        assert word in drawn
    assert "<pad>" not in drawn


def test_flat_plot(tmp_path):
    figure = plot_attention(["wheat", "prices", "rose"], np.array([0.2, 0.3, 0.5, 0.0]), path=str(tmp_path / "f.png"))
    assert (tmp_path / "f.png").stat().st_size > 2000
    assert {"wheat", "prices", "rose"} <= set(_texts(figure))


def test_mismatched_scores_name_the_argument():
    with pytest.raises(ValueError, match="word_scores|tokens"):
        plot_attention([["wheat", "prices"], ["gold"]], np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="label_scores"):
        plot_attention(["wheat"], np.array([1.0]), label_scores="grain")
