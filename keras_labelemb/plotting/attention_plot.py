"""Pictures of where a document encoder looked: word and sentence attention of one document.

matplotlib is an optional dependency (in the `test` and `bench` extras); it is
imported when a figure is drawn, not when this module is imported. Figures are
drawn with the Agg canvas directly (no pyplot, no display, no global state),
so this works on headless machines and in threads.
"""

import numbers
import os
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from keras_labelemb.display_text import short_repr, token_text

# Tokens never drawn: `keras_labelemb.text.document_tokens` marks padding between words with "", and
# "<pad>" is keras_labelemb.text.vocabulary.PAD_TOKEN (not imported: that package needs TensorFlow).
_PADDING_TOKENS = ("", "<pad>")

# Layout, in inches (the drawing axes use inches as data units, y pointing down).
_FONT_SIZE = 11
_LINE_HEIGHT = 0.32
_BOX_HEIGHT = 0.25
_WORD_PAD = 0.04  # inside a word box, each side
_WORD_GAP = 0.05
_SENTENCE_GAP = 0.12
_MARGIN = 0.25
_GUTTER = 1.05  # sentence attention bars and their values
_TITLE_HEIGHT = 0.45
_COLORBAR_SPACE = 0.75
_LABEL_ROW = 0.26
_LABEL_BAR_WIDTH = 1.5
_MIN_TEXT_WIDTH = 3.0
_WORD_CMAP = "Reds"
_SENTENCE_COLOR = "#3b75af"
_LABEL_COLOR = "#3b75af"


def _require_matplotlib():
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(
            "keras_labelemb.plotting needs matplotlib, an optional dependency: "
            "install it with `pip install matplotlib` (or `pip install keras_labelemb[test]`)."
        ) from error
    return Figure, FigureCanvasAgg


def _is_token(value):
    return value is None or isinstance(value, (str, bytes, np.str_, np.bytes_))


def _scores(name, value, ndims):
    try:
        array = np.asarray(value, dtype="float64")
    except (TypeError, ValueError) as error:
        raise ValueError(f"`{name}` must be an array of numbers. Received: {name}={short_repr(value)}") from error
    if array.ndim not in ndims:
        expected = " or ".join(f"{n}-D" for n in ndims)
        raise ValueError(
            f"`{name}` must be {expected} (one document: index the batch axis first). "
            f"Received: {name} with shape {array.shape}"
        )
    if not np.all(np.isfinite(array)):
        raise ValueError(f"`{name}` must be finite. Received: {name}={short_repr(array.tolist())}")
    return array


def _token_rows(tokens, word_scores):
    """Checks `tokens` against `word_scores`; returns a list of token rows (one per score row)."""
    if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__len__"):
        raise ValueError(f"`tokens` must be a list of tokens (or of sentences). Received: tokens={short_repr(tokens)}")
    tokens = list(tokens)
    if word_scores.ndim == 1:  # flat: one row
        if not all(_is_token(t) for t in tokens):
            raise ValueError(
                "`tokens` must be a flat list of str when `word_scores` is 1-D (T,); for a hierarchical "
                f"document pass (K, T) word scores. Received: tokens={short_repr(tokens)}"
            )
        rows = [tokens]
    else:
        if any(_is_token(s) or not hasattr(s, "__len__") for s in tokens):
            raise ValueError(
                "`tokens` must be a list of sentences (each a list of str) when `word_scores` is 2-D (K, T). "
                f"Received: tokens={short_repr(tokens)}"
            )
        rows = [list(s) for s in tokens]
        if len(rows) > word_scores.shape[0]:
            raise ValueError(
                f"`tokens` has {len(rows)} sentences but `word_scores` has only {word_scores.shape[0]} rows "
                f"(shape {word_scores.shape}). Received: tokens with {len(rows)} sentences"
            )
    limit = word_scores.shape[-1]
    for index, row in enumerate(rows):
        if not all(_is_token(t) for t in row):
            raise ValueError(f"`tokens` must hold str tokens. Received: tokens[{index}]={short_repr(row)}")
        if len(row) > limit:
            where = "tokens" if word_scores.ndim == 1 else f"tokens[{index}]"
            raise ValueError(
                f"`{where}` has {len(row)} tokens but `word_scores` has only {limit} positions per "
                f"{'document' if word_scores.ndim == 1 else 'sentence'} (shape {word_scores.shape}). "
                f"Received: {where}={short_repr(row)}"
            )
    return [[token_text(t) for t in row] for row in rows]


def _label_pairs(label_scores, max_labels):
    if label_scores is None:
        return []
    items = label_scores.items() if isinstance(label_scores, Mapping) else label_scores
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise ValueError(
            f"`label_scores` must be a list of (label_name, score) pairs. Received: {short_repr(label_scores)}"
        )
    pairs = []
    for item in items:
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 2:
            raise ValueError(
                "`label_scores` must be a list of (label_name, score) pairs. "
                f"Received: label_scores item {short_repr(item)}"
            )
        name, score = item
        if isinstance(score, np.ndarray) and score.size == 1:
            score = score.item()
        if not isinstance(score, numbers.Real) or not np.isfinite(float(score)):
            raise ValueError(
                f"`label_scores` scores must be finite numbers. Received: label_scores item {short_repr(item)}"
            )
        pairs.append((token_text(name), float(score)))
    pairs.sort(key=lambda pair: -pair[1])
    return pairs[:max_labels]


def _fit(text, width, measure):
    """`text`, cut with an ellipsis until it is at most `width` inches wide."""
    if measure(text) <= width:
        return text
    while len(text) > 1 and measure(text + "…") > width:
        text = text[:-1]
    return text + "…"


def plot_attention(
    tokens,
    word_scores,
    sentence_scores=None,
    path=None,
    title=None,
    label_scores=None,
    max_labels=10,
    width=10.0,
):
    """Draws the attention a document encoder paid to one document.

    Hierarchical document (`word_scores` of shape `(K, T)`): one block per
    sentence, its words on a row (wrapped when long), each word on a box
    coloured by its word attention; the sentence attention is a blue bar (and
    its value) at the left of the block. Flat document (`word_scores` of shape
    `(T,)`): the words wrapped in lines, coloured the same way. Word colours
    share one scale (white = 0, dark red = the largest word score of the
    document), shown by a colour bar below the text. With `label_scores`, a
    small bar chart of the `max_labels` highest scoring labels sits at the right.

    Tokens align with the start of the score rows: `tokens[i][j]` (flat:
    `tokens[j]`) has score `word_scores[i, j]`, and score positions past the
    end of a token row are padding and are ignored. Tokens `""`, `None` and
    `"<pad>"` are padding too and are not drawn. `keras_labelemb.text.document_tokens` turns token
    ids into such tokens.

    Args:
        tokens: flat: a list of `T' <= T` str; hierarchical: a list of
            `K' <= K` sentences, each a list of at most `T` str.
        word_scores: `(T,)` or `(K, T)` word attention of ONE document (NumPy
            array or any backend tensor), e.g. the scores of
            `HierarchicalAttention` called with `return_attention_scores=True`.
        sentence_scores: optional `(K,)` sentence attention (hierarchical only).
        path: if given, the figure is saved there as a PNG (150 dpi).
        title: optional title drawn above the text.
        label_scores: optional `[(label_name, score), ...]` (or a dict), e.g.
            predicted probabilities; the highest `max_labels` are drawn.
        max_labels: how many labels the bar chart shows. Default 10.
        width: largest figure width in inches; a short document gets a
            narrower figure, and the height follows the text. Default 10.

    Returns:
        The `matplotlib.figure.Figure` (drawn on an Agg canvas; not registered
        with pyplot, so nothing needs closing).

    Raises:
        ValueError: naming the argument, when shapes disagree (more tokens than
            score positions, `sentence_scores` not of shape `(K,)`, ...), when
            scores are not finite, or when `label_scores` is not a list of pairs.
        ImportError: when matplotlib is not installed.

    Example:

    >>> import numpy as np
    >>> tokens = [["the", "cat", "sat"], ["it", "purred"]]      # K'=2 sentences
    >>> word_scores = np.array([[0.2, 0.7, 0.1, 0.0],            # (K, T) = (3, 4);
    ...                         [0.4, 0.6, 0.0, 0.0],            # padding positions
    ...                         [0.0, 0.0, 0.0, 0.0]])           # are ignored
    >>> fig = plot_attention(tokens, word_scores, sentence_scores=[0.8, 0.2, 0.0],
    ...                      title="a cat", label_scores=[("pets", 0.93), ("sports", 0.04)])
    >>> sorted(t.get_text() for t in fig.axes[0].texts if t.get_gid() == "word")
    ['cat', 'it', 'purred', 'sat', 'the']

    With a model's encoder (token ids `(K, T)` of one document, vocabulary as a list):

    >>> import keras
    >>> from keras_labelemb.layers import HierarchicalAttention
    >>> from keras_labelemb.text import document_tokens
    >>> vocabulary = ["<pad>", "<unk>", "the", "cat", "sat", "it", "purred"]
    >>> ids = np.array([[[2, 3, 4], [5, 6, 0]]])                 # (B, K, T), 0 = padding
    >>> embedding = keras.layers.Embedding(len(vocabulary), 8, mask_zero=True)
    >>> encoder = HierarchicalAttention("dense", 8, "dense", 8)
    >>> _, words, sentences = encoder(embedding(ids), mask=embedding.compute_mask(ids), return_attention_scores=True)
    >>> fig = plot_attention(document_tokens(vocabulary, ids[0]),
    ...                      keras.ops.convert_to_numpy(words)[0],
    ...                      keras.ops.convert_to_numpy(sentences)[0])
    """
    word_scores, sentence_scores, rows, labels = _checked_inputs(
        tokens, word_scores, sentence_scores, label_scores, max_labels, width
    )
    Figure, FigureCanvasAgg = _require_matplotlib()
    import matplotlib as mpl

    fig = Figure(dpi=100, facecolor="white")
    renderer = FigureCanvasAgg(fig).get_renderer()
    layout = attention_layout(rows, word_scores, sentence_scores, labels, title, width, _text_measure(fig, renderer))
    fig.set_size_inches(layout.width, layout.height)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, layout.width)
    ax.set_ylim(layout.height, 0)
    ax.set_axis_off()
    if title:
        ax.text(
            _MARGIN,
            _MARGIN,
            token_text(title),
            fontsize=13,
            fontweight="bold",
            va="top",
            ha="left",
            gid="title",
            parse_math=False,
        )
    # Words share one colour scale for the document: white = 0, dark = its largest word score.
    vmax = max((word.score for word in layout.words), default=0.0)
    norm = mpl.colors.Normalize(vmin=0.0, vmax=vmax if vmax > 0 else 1.0, clip=True)
    cmap = mpl.colormaps[_WORD_CMAP]
    _draw_words(ax, layout, norm, cmap)
    if sentence_scores is not None and layout.blocks:
        _draw_sentence_bars(ax, layout)
    if layout.words:
        _draw_colorbar(fig, layout, norm, cmap)
    if labels:
        _draw_label_panel(fig, layout, labels)
    if path is not None:
        fig.savefig(os.fspath(path), dpi=150, format="png", facecolor="white")
    return fig


def _checked_inputs(tokens, word_scores, sentence_scores, label_scores, max_labels, width):
    """The arguments of `plot_attention`, checked: `(word_scores, sentence_scores, token rows, labels)`."""
    word_scores = _scores("word_scores", word_scores, ndims=(1, 2))
    if sentence_scores is not None:
        if word_scores.ndim != 2:
            raise ValueError(
                "`sentence_scores` is only for a hierarchical document (2-D `word_scores` (K, T)); "
                f"`word_scores` has shape {word_scores.shape}. Received: sentence_scores={short_repr(sentence_scores)}"
            )
        sentence_scores = _scores("sentence_scores", sentence_scores, ndims=(1,))
        if sentence_scores.shape[0] != word_scores.shape[0]:
            raise ValueError(
                f"`sentence_scores` must have shape ({word_scores.shape[0]},), one score per sentence of "
                f"`word_scores` {word_scores.shape}. Received: sentence_scores with shape {sentence_scores.shape}"
            )
    rows = _token_rows(tokens, word_scores)
    if not isinstance(max_labels, numbers.Integral) or isinstance(max_labels, bool) or max_labels < 1:
        raise ValueError(f"`max_labels` must be a positive integer. Received: max_labels={max_labels!r}")
    if not isinstance(width, numbers.Real) or not width > 0:
        raise ValueError(f"`width` must be a positive number of inches. Received: width={width!r}")
    return word_scores, sentence_scores, rows, _label_pairs(label_scores, max_labels)


def _text_measure(fig, renderer):
    """`measure(text, size)`: the width in inches of `text` drawn at `size` points on `fig`."""
    from matplotlib.font_manager import FontProperties

    def measure(text, size=_FONT_SIZE):
        w, _, _ = renderer.get_text_width_height_descent(text, FontProperties(size=size), ismath=False)
        return w / fig.dpi

    return measure


class PlacedWord(NamedTuple):
    line: int
    x: float
    box: float  # width of the word's box, inches
    text: str
    score: float


class SentenceBlock(NamedTuple):
    first_line: int
    last_line: int
    score: float | None  # sentence attention (None without sentence scores)


class AttentionLayout(NamedTuple):
    """Where everything of an attention figure goes, in inches (y pointing down)."""

    words: list  # PlacedWord, in reading order
    blocks: list  # SentenceBlock, one per drawn (non-padding) sentence
    line_ys: list  # y of each text line's centre
    text_x0: float
    text_width: float
    width: float
    height: float
    top: float
    text_bottom: float
    label_names: list  # label names fitted to the panel


def attention_layout(rows, word_scores, sentence_scores, labels, title, width, measure):
    """The layout step of `plot_attention`: which words go where, with no drawing.

    `rows` are token rows (one per score row; padding tokens are skipped),
    `labels` `(name, score)` pairs and `measure(text, size)` a text width in
    inches. Words wrap within the text column; each sentence starts a new
    line, and sentences are separated by a gap.

    >>> layout = attention_layout([["a", "bb", ""], ["", ""]], np.array([[0.1, 0.9, 0.0], [0.0, 0.0, 0.0]]),
    ...                           None, [], None, 10.0, lambda text, size=11: 0.1 * len(text))
    >>> [(word.text, word.score) for word in layout.words], len(layout.blocks)
    ([('a', 0.1), ('bb', 0.9)], 1)
    """
    hierarchical = word_scores.ndim == 2
    label_names = [_fit(name, 2.0, lambda t: measure(t, 9)) for name, _ in labels]
    label_panel = (max(measure(n, 9) for n in label_names) + _LABEL_BAR_WIDTH + 0.7) if labels else 0.0
    text_x0 = _MARGIN + (_GUTTER if sentence_scores is not None else 0.0)
    text_width = max(_MIN_TEXT_WIDTH, width - text_x0 - _MARGIN - label_panel)
    words, blocks, line = [], [], 0
    for index, row in enumerate(rows):
        visible = [(j, t) for j, t in enumerate(row) if t not in _PADDING_TOKENS]
        if not visible:
            continue  # a padding sentence
        x, first = text_x0, line
        for j, text in visible:
            text = _fit(text, text_width - 2 * _WORD_PAD, measure)
            box = measure(text) + 2 * _WORD_PAD
            if x > text_x0 and x + box > text_x0 + text_width:
                line, x = line + 1, text_x0
            score = float(word_scores[index, j] if hierarchical else word_scores[j])
            words.append(PlacedWord(line, x, box, text, score))
            x += box + _WORD_GAP
        blocks.append(SentenceBlock(first, line, None if sentence_scores is None else float(sentence_scores[index])))
        line += 1
    # A short document gets a narrower figure instead of white space.
    used = max((word.x + word.box for word in words), default=text_x0) - text_x0
    text_width = max(_MIN_TEXT_WIDTH, used) if used < text_width else text_width
    width = text_x0 + text_width + _MARGIN + label_panel
    top = _MARGIN + (_TITLE_HEIGHT if title else 0.0)
    line_ys = [
        top
        + n * _LINE_HEIGHT
        + sum(1 for block in blocks[1:] if block.first_line <= n) * _SENTENCE_GAP
        + _LINE_HEIGHT / 2
        for n in range(line)
    ]
    text_bottom = (line_ys[-1] + _LINE_HEIGHT / 2) if words else top + _LINE_HEIGHT
    height = max(text_bottom + _COLORBAR_SPACE, top + 0.35 + len(labels) * _LABEL_ROW + _MARGIN + 0.3)
    return AttentionLayout(words, blocks, line_ys, text_x0, text_width, width, height, top, text_bottom, label_names)


def _draw_words(ax, layout, norm, cmap):
    from matplotlib.patches import FancyBboxPatch

    for word in layout.words:
        colour = cmap(norm(word.score))
        y = layout.line_ys[word.line]
        ax.add_patch(
            FancyBboxPatch(
                (word.x, y - _BOX_HEIGHT / 2),
                word.box,
                _BOX_HEIGHT,
                boxstyle="round,pad=0,rounding_size=0.05",
                facecolor=colour,
                edgecolor="#d9d9d9",
                linewidth=0.5,
            )
        )
        luminance = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]
        ax.text(
            word.x + word.box / 2,
            y,
            word.text,
            fontsize=_FONT_SIZE,
            ha="center",
            va="center_baseline",
            color="white" if luminance < 0.5 else "#1a1a1a",
            gid="word",
            parse_math=False,
        )
    if not layout.words:
        ax.text(
            layout.text_x0,
            layout.top + _LINE_HEIGHT / 2,
            "(no tokens)",
            fontsize=_FONT_SIZE,
            style="italic",
            color="#777777",
            va="center",
            gid="empty",
        )


def _draw_sentence_bars(ax, layout):
    """A bar per sentence block at the left, its length relative to the largest sentence score."""
    from matplotlib.patches import Rectangle

    smax = max(block.score for block in layout.blocks)
    smax = smax if smax > 0 else 1.0
    bar_room = _GUTTER - 0.5
    for block in layout.blocks:
        y0 = layout.line_ys[block.first_line] - _BOX_HEIGHT / 2
        y1 = layout.line_ys[block.last_line] + _BOX_HEIGHT / 2
        ax.add_patch(Rectangle((_MARGIN, y0), bar_room, y1 - y0, facecolor="#eef3f8", edgecolor="none"))
        ax.add_patch(
            Rectangle(
                (_MARGIN, y0),
                bar_room * max(block.score, 0.0) / smax,
                y1 - y0,
                facecolor=_SENTENCE_COLOR,
                edgecolor="none",
            )
        )
        ax.text(
            _MARGIN + bar_room + 0.06,
            layout.line_ys[block.first_line],
            f"{block.score:.2f}",
            fontsize=8,
            color="#555555",
            ha="left",
            va="center_baseline",
            gid="sentence_score",
        )
    ax.text(_MARGIN, layout.top - 0.06, "sentence", fontsize=8, color="#555555", ha="left", va="bottom")


def _draw_colorbar(fig, layout, norm, cmap):
    """The word colour scale, under the text."""
    import matplotlib as mpl

    width, height = layout.width, layout.height
    bar_width = min(2.4, layout.text_width)
    cax = fig.add_axes(
        (layout.text_x0 / width, (height - layout.text_bottom - 0.32) / height, bar_width / width, 0.1 / height)
    )
    colorbar = fig.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=cmap), cax=cax, orientation="horizontal")
    vmax = norm.vmax
    colorbar.set_ticks([0.0, vmax / 2, vmax], labels=[f"{v:.2g}" for v in (0.0, vmax / 2, vmax)])
    colorbar.ax.tick_params(labelsize=7, length=2, pad=1)
    colorbar.outline.set_linewidth(0.5)
    cax.set_title("word attention", fontsize=8, color="#555555", loc="left", pad=2)


def _draw_label_panel(fig, layout, labels):
    """A bar chart of the top label scores at the right."""
    width, height = layout.width, layout.height
    panel_x = width - _MARGIN - _LABEL_BAR_WIDTH - 0.4
    panel_top = layout.top + 0.3
    panel_height = len(labels) * _LABEL_ROW
    lax = fig.add_axes(
        (panel_x / width, (height - panel_top - panel_height) / height, _LABEL_BAR_WIDTH / width, panel_height / height)
    )
    values = [score for _, score in labels]
    positions = np.arange(len(labels))
    lax.barh(positions, values, height=0.7, color=_LABEL_COLOR)
    lax.set_yticks(positions, layout.label_names, fontsize=9)
    lax.set_ylim(len(labels) - 0.5, -0.5)
    low, high = min(0.0, min(values)), max(0.0, max(values))
    span = (high - low) or 1.0
    lax.set_xlim(low - 0.02 * span, high + 0.02 * span)
    lax.set_xticks([])
    for side in ("top", "right", "bottom"):
        lax.spines[side].set_visible(False)
    lax.spines["left"].set_linewidth(0.5)
    lax.tick_params(axis="y", length=0)
    for position, value in zip(positions, values):
        lax.text(
            max(value, 0.0) + 0.03 * span,
            position,
            f"{value:.2f}",
            fontsize=8,
            color="#555555",
            va="center",
            ha="left",
            clip_on=False,
            gid="label_score",
        )
    lax.set_title("top labels", fontsize=9, color="#555555", loc="left", pad=4)
