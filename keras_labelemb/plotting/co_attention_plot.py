"""Heat maps of CNLE's two attention directions between one text and its labels (the paper's Fig. 2)."""

import numpy as np

from keras_labelemb.plotting.attention_plot import _require_matplotlib


def _checked(name, value, shape):
    value = np.asarray(value, dtype="float64")
    if value.shape != shape:
        raise ValueError(f"`{name}` must have shape {shape} (labels x words). Received: shape {value.shape}")
    if not np.all(np.isfinite(value)):
        raise ValueError(f"`{name}` must be finite. Received: {int(np.sum(~np.isfinite(value)))} non-finite values")
    return value


def plot_co_attention(tokens, label_names, label_to_text, text_to_label, path=None, title=None, figure_width=None):
    """Draws both attention directions of `CoAttention` for one text as two labels-by-words heat maps.

    Args:
        tokens: the text's `m` words (strings), in order.
        label_names: the `c` labels shown (strings), one row each.
        label_to_text: `(c, m)`: how much each word attends to each label
            (`CoAttention`'s `label_to_text_scores` `(B, p, m, c)` of one text,
            averaged over heads and transposed).
        text_to_label: `(c, m)`: how each label attends over the words
            (`text_to_label_scores` `(B, p, c, m)` of one text, averaged over heads).
        path: where to save the PNG (None: only return the figure).
        title: the figure title.
        figure_width: inches (default: grows with the number of words).

    Returns:
        The matplotlib `Figure`.

    Example:

    >>> import numpy as np
    >>> scores = np.random.default_rng(0).dirichlet(np.ones(3), size=2)
    >>> fig = plot_co_attention(["wheat", "prices", "rose"], ["wheat", "grain"], scores, scores)
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['label-to-text: words attending to each label', 'text-to-label: each label attending over the words']
    """
    Figure, FigureCanvasAgg = _require_matplotlib()
    tokens, label_names = [str(t) for t in tokens], [str(n) for n in label_names]
    if not tokens or not label_names:
        raise ValueError(
            f"`tokens` and `label_names` must not be empty. Received: {len(tokens)} tokens, {len(label_names)} labels"
        )
    shape = (len(label_names), len(tokens))
    panels = (
        ("label-to-text: words attending to each label", _checked("label_to_text", label_to_text, shape)),
        ("text-to-label: each label attending over the words", _checked("text_to_label", text_to_label, shape)),
    )
    width = figure_width or min(4.0 + 0.28 * len(tokens), 30.0)
    height = 1.6 + 2 * (0.8 + 0.28 * len(label_names))
    fig = Figure(figsize=(width, height), constrained_layout=True)
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, 1)
    for ax, (name, scores) in zip(axes, panels):
        image = ax.imshow(scores, aspect="auto", cmap="Blues")  # own range: near-uniform weights still show contrast
        ax.set_title(name, fontsize=10)
        ax.set_yticks(range(len(label_names)), label_names, fontsize=8)
        ax.set_xticks(range(len(tokens)), tokens, rotation=90, fontsize=8)
        fig.colorbar(image, ax=ax, fraction=0.02, pad=0.01)
    if title:
        fig.suptitle(title, fontsize=11)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
