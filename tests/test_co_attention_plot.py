"""plot_co_attention: both attention directions of one text as heat maps, with checked inputs."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from keras_labelemb.plotting import plot_co_attention  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TOKENS = ["wheat", "prices", "rose", "sharply"]
LABELS = ["wheat", "grain", "gold"]


def scores(seed=0):
    return np.random.default_rng(seed).dirichlet(np.ones(len(TOKENS)), size=len(LABELS))


def test_plot_draws_each_direction_with_its_scores_and_names(tmp_path):
    path = tmp_path / "co_attention.png"
    first, second = scores(0), scores(1)
    fig = plot_co_attention(TOKENS, LABELS, first, second, path=path, title="one text")
    assert path.read_bytes().startswith(PNG_SIGNATURE)
    heat_maps = [ax for ax in fig.axes if ax.images]
    assert len(heat_maps) == 2
    for ax, expected in zip(heat_maps, (first, second)):
        np.testing.assert_allclose(ax.images[0].get_array(), expected)
        assert [t.get_text() for t in ax.get_yticklabels()] == LABELS
        assert [t.get_text() for t in ax.get_xticklabels()] == TOKENS
    assert fig._suptitle.get_text() == "one text"


@pytest.mark.parametrize(
    "label_to_text, text_to_label, message",
    [
        (np.ones((3, 5)), np.ones((3, 4)), r"label_to_text.*\(3, 4\).*\(3, 5\)"),
        (np.ones((3, 4)), np.ones((4, 3)), r"text_to_label.*\(3, 4\).*\(4, 3\)"),
        (np.full((3, 4), np.nan), np.ones((3, 4)), "label_to_text.*finite.*12"),
    ],
)
def test_plot_rejects_mismatched_or_non_finite_scores(label_to_text, text_to_label, message):
    with pytest.raises(ValueError, match=message):
        plot_co_attention(TOKENS, LABELS, label_to_text, text_to_label)


def test_plot_rejects_an_empty_text_or_label_list():
    with pytest.raises(ValueError, match="0 tokens"):
        plot_co_attention([], LABELS, np.ones((3, 0)), np.ones((3, 0)))
