import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from keras_labelemb.plotting import attention_plot, plot_attention  # noqa: E402
from keras_labelemb.text import document_tokens  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
VOCABULARY = ["<pad>", "<unk>", "the", "cat", "sat", "on", "mat", "it", "purred", "loudly"]
# One document, K=4 sentences of T=5 words, 0 = padding (a padding sentence at the end).
IDS = np.array(
    [
        [2, 3, 4, 5, 2],
        [6, 0, 0, 0, 0],
        [7, 8, 9, 1, 0],
        [0, 0, 0, 0, 0],
    ]
)


def attention(ids, seed=0):
    """Word scores that sum to one over the non-padding words of each row, zero elsewhere."""
    rng = np.random.default_rng(seed)
    scores = rng.random(ids.shape) * (ids != 0)
    return scores / np.maximum(scores.sum(-1, keepdims=True), 1e-9)


def word_texts(fig):
    return [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "word"]


def all_texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def assert_png(path):
    assert path.is_file()
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert len(data) > 5_000, f"suspiciously small PNG: {len(data)} bytes"
    import matplotlib.image

    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 500
    assert image[..., :3].std() > 0.05, "the image is (nearly) blank"


def test_hierarchical_png_with_sentence_bars_and_labels(tmp_path):
    path = tmp_path / "han.png"
    tokens = document_tokens(VOCABULARY, IDS)
    fig = plot_attention(
        tokens,
        attention(IDS),
        sentence_scores=[0.6, 0.1, 0.3, 0.0],
        path=path,
        title="a cat",
        label_scores=[("pets", 0.9), ("sports", 0.05), ("music", 0.4)],
    )
    assert_png(path)
    # Every real word is drawn once, in order; no padding is drawn.
    assert word_texts(fig) == [VOCABULARY[i] for i in IDS.ravel() if i != 0]
    assert "<pad>" not in all_texts(fig) and "" not in word_texts(fig)
    # One sentence bar per non-padding sentence, labels sorted by score.
    assert [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "sentence_score"] == ["0.60", "0.10", "0.30"]
    label_axes = fig.axes[-1]
    assert [t.get_text() for t in label_axes.get_yticklabels()] == ["pets", "music", "sports"]
    assert "a cat" in all_texts(fig)


def test_flat_png(tmp_path):
    ids = np.array([2, 3, 4, 5, 2, 6, 7, 8, 9] * 5 + [0] * 15)
    path = tmp_path / "wan.png"
    fig = plot_attention(document_tokens(VOCABULARY, ids), attention(ids), path=str(path))
    assert_png(path)
    assert len(word_texts(fig)) == 45
    # Long documents wrap onto several lines inside the figure.
    lines = {round(t.get_position()[1], 3) for t in fig.axes[0].texts if t.get_gid() == "word"}
    assert len(lines) > 1
    x_max = max(t.get_window_extent().x1 for t in fig.axes[0].texts if t.get_gid() == "word")
    assert x_max < fig.bbox.width


def test_padding_tokens_are_never_drawn():
    tokens = [["the", "<pad>", "cat"], ["", None], ["sat"]]
    fig = plot_attention(tokens, np.full((3, 3), 1 / 3), sentence_scores=[0.5, 0.0, 0.5])
    assert word_texts(fig) == ["the", "cat", "sat"]
    # The all-padding sentence gets no bar.
    assert len([t for t in fig.axes[0].texts if t.get_gid() == "sentence_score"]) == 2


def test_word_colours_follow_the_scores():
    import matplotlib

    fig = plot_attention(["low", "high"], np.array([0.1, 0.9]))
    boxes = [p for p in fig.axes[0].patches if isinstance(p, matplotlib.patches.FancyBboxPatch)]
    low, high = (np.mean(p.get_facecolor()[:3]) for p in boxes)
    assert high < low  # darker for more attention


def test_empty_document_draws_a_placeholder(tmp_path):
    fig = plot_attention(document_tokens(VOCABULARY, np.zeros((2, 3), int)), np.zeros((2, 3)), path=tmp_path / "e.png")
    assert word_texts(fig) == []
    assert "(no tokens)" in all_texts(fig)


def test_scores_from_the_encoder_plot_end_to_end(tmp_path):
    import keras

    from keras_labelemb.layers import HierarchicalAttention

    ids = IDS[None]
    embedding = keras.layers.Embedding(len(VOCABULARY), 8, mask_zero=True)
    encoder = HierarchicalAttention("dense", 8, "dense", 8, return_attention_scores=True)
    _, words, sentences = encoder(embedding(ids), mask=embedding.compute_mask(ids))
    fig = plot_attention(document_tokens(VOCABULARY, ids[0]), words[0], sentences[0], path=tmp_path / "m.png")
    assert_png(tmp_path / "m.png")
    assert len(word_texts(fig)) == int((IDS != 0).sum())


@pytest.mark.parametrize(
    "kwargs, match",
    [
        # More sentences than score rows.
        ({"tokens": [["a"]] * 4, "word_scores": np.ones((3, 5))}, r"`tokens` has 4 sentences"),
        # A sentence longer than the score rows.
        ({"tokens": [["a"] * 6], "word_scores": np.ones((3, 5))}, r"`tokens\[0\]` has 6 tokens"),
        # Flat document longer than its scores.
        ({"tokens": ["a"] * 6, "word_scores": np.ones(5)}, r"`tokens` has 6 tokens"),
        # Flat tokens with hierarchical scores and the reverse.
        ({"tokens": ["a", "b"], "word_scores": np.ones((3, 5))}, r"`tokens` must be a list of sentences"),
        ({"tokens": [["a", "b"]], "word_scores": np.ones(5)}, r"`tokens` must be a flat list"),
        ({"tokens": "a b", "word_scores": np.ones(5)}, r"`tokens`"),
        (
            {"tokens": [["a"]], "word_scores": np.ones((3, 5)), "sentence_scores": np.ones(4)},
            r"`sentence_scores` must have shape \(3,\)",
        ),
        (
            {"tokens": [["a"]], "word_scores": np.ones((3, 5)), "sentence_scores": np.ones((3, 1))},
            r"`sentence_scores` must be 1-D",
        ),
        ({"tokens": ["a"], "word_scores": np.ones(5), "sentence_scores": np.ones(1)}, r"`sentence_scores` is only for"),
        ({"tokens": [["a"]], "word_scores": np.ones((1, 3, 5))}, r"`word_scores` must be 1-D or 2-D"),
        ({"tokens": ["a"], "word_scores": np.array([np.nan, 1.0])}, r"`word_scores` must be finite"),
        ({"tokens": ["a"], "word_scores": np.ones(2), "label_scores": [("a", 1.0, 2.0)]}, r"`label_scores`"),
        ({"tokens": ["a"], "word_scores": np.ones(2), "label_scores": [("a", "high")]}, r"`label_scores`"),
        ({"tokens": ["a"], "word_scores": np.ones(2), "label_scores": "grain"}, r"`label_scores`"),
        ({"tokens": ["a"], "word_scores": np.ones(2), "max_labels": 0}, r"max_labels=0"),
    ],
)
def test_mismatched_inputs_raise_value_errors_naming_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        plot_attention(**kwargs)


def test_label_scores_accept_a_dict_and_keep_the_top_ones():
    scores = {f"label{i}": i / 20 for i in range(20)}
    fig = plot_attention(["a"], np.ones(1), label_scores=scores, max_labels=3)
    assert [t.get_text() for t in fig.axes[-1].get_yticklabels()] == ["label19", "label18", "label17"]


def test_missing_matplotlib_is_a_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        plot_attention(["a"], np.ones(1))


@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_the_package_imports_without_matplotlib():
    """matplotlib is optional: imported when drawing (Keras itself imports it when it is installed)."""
    code = "import sys; sys.modules['matplotlib'] = None; import keras_labelemb, keras_labelemb.plotting"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]


def _chars(text, size=11):
    """A stand-in text measure: 0.1 inch per character."""
    return 0.1 * len(text)


def test_layout_places_words_in_reading_order_and_skips_padding():
    rows = [["the", "cat", "", "<pad>"], ["", "", "", ""], ["it", "purred"]]
    scores = np.array([[0.2, 0.7, 0.05, 0.05], [0.0, 0.0, 0.0, 0.0], [0.4, 0.6, 0.0, 0.0]])
    layout = attention_plot.attention_layout(rows, scores, np.array([0.7, 0.0, 0.3]), [], None, 10.0, _chars)
    assert [w.text for w in layout.words] == ["the", "cat", "it", "purred"]  # padding tokens are not placed
    assert [w.score for w in layout.words] == [0.2, 0.7, 0.4, 0.6]
    assert [(b.first_line, b.last_line, b.score) for b in layout.blocks] == [(0, 0, 0.7), (1, 1, 0.3)]
    assert layout.line_ys[1] > layout.line_ys[0]  # the second sentence is drawn below the first
    xs = [w.x for w in layout.words if w.line == 0]
    assert xs == sorted(xs)


def test_layout_wraps_a_long_sentence_within_the_text_column():
    row = [f"word{i}" for i in range(40)]
    layout = attention_plot.attention_layout([row], np.ones((1, 40)) / 40, None, [], None, 6.0, _chars)
    assert layout.words[-1].line > 0
    assert all(w.x + w.box <= layout.text_x0 + layout.text_width + 1e-9 for w in layout.words)
    assert len(layout.line_ys) == layout.words[-1].line + 1


def test_the_highest_scored_word_is_drawn_darkest():
    fig = plot_attention(["low", "high", "mid"], np.array([0.1, 0.8, 0.4]))
    ax = fig.axes[0]
    boxes = [p.get_facecolor() for p in ax.patches]  # one box per word, in reading order
    luminance = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b, _ in boxes]
    assert np.argmin(luminance) == 1 and np.argmax(luminance) == 0
