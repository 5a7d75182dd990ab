"""Token ids of one document back to its tokens, e.g. to label an attention plot."""

import numpy as np

from keras_labelemb.display_text import short_repr, token_text

# Id 0 is padding everywhere in the library (`keras_labelemb.text.vocabulary.PAD_TOKEN`).
_PADDING_ID = 0


def document_tokens(vectorizer, ids):
    """Maps the token ids of one document back to its tokens, padding dropped.

    Id 0 is padding (the library's convention): trailing padding of every row
    and trailing all-padding sentences are dropped. Padding between words
    (which `TextVectorizer` never produces) becomes `""`, so that `tokens[i][j]`
    stays the word at `ids[i, j]` and lines up with the attention scores;
    `keras_labelemb.plotting.plot_attention` does not draw it.

    Args:
        vectorizer: anything with `get_vocabulary()` (a
            `keras_labelemb.text.TextVectorizer`, a `keras.layers.TextVectorization`),
            or the vocabulary itself as a list of tokens (index = id).
        ids: `(T,)` ids of a flat document or `(K, T)` ids of a hierarchical one
            (a NumPy array or any tensor).

    Returns:
        A list of str for `(T,)` ids; a list of sentences (lists of str) for `(K, T)`.

    Raises:
        ValueError: naming the argument, for ids that are not 1-D or 2-D
            integers, ids outside the vocabulary, or a `vectorizer` without a
            vocabulary.

    Example:

    >>> import numpy as np
    >>> vocabulary = ["<pad>", "<unk>", "the", "cat", "sat"]
    >>> document_tokens(vocabulary, np.array([[2, 3, 4], [1, 4, 0], [0, 0, 0]]))
    [['the', 'cat', 'sat'], ['<unk>', 'sat']]
    >>> document_tokens(vocabulary, [2, 3, 0, 0])
    ['the', 'cat']
    """
    if hasattr(vectorizer, "get_vocabulary"):
        vocabulary = vectorizer.get_vocabulary()
    elif isinstance(vectorizer, (list, tuple, np.ndarray)):
        vocabulary = vectorizer
    else:
        raise ValueError(
            "`vectorizer` must have a `get_vocabulary()` method or be a list of tokens. "
            f"Received: vectorizer={short_repr(vectorizer)}"
        )
    vocabulary = [token_text(t) for t in vocabulary]
    if not vocabulary:
        raise ValueError(
            "`vectorizer` has an empty vocabulary (call `adapt()` or `set_vocabulary()` first). "
            f"Received: vectorizer={short_repr(vectorizer)}"
        )
    array = np.asarray(ids)
    if array.ndim not in (1, 2):
        raise ValueError(
            f"`ids` must be (T,) or (K, T) token ids of ONE document (index the batch axis first). "
            f"Received: ids with shape {array.shape}"
        )
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"`ids` must be integer token ids. Received: ids with dtype {array.dtype}")
    if array.size and (array.min() < 0 or array.max() >= len(vocabulary)):
        raise ValueError(
            f"`ids` must lie in [0, {len(vocabulary)}) (the vocabulary size). "
            f"Received: ids in [{array.min()}, {array.max()}]"
        )

    def row_tokens(row):
        row = [int(i) for i in row]
        while row and row[-1] == _PADDING_ID:
            row.pop()
        return ["" if i == _PADDING_ID else vocabulary[i] for i in row]

    if array.ndim == 1:
        return row_tokens(array)
    sentences = [row_tokens(row) for row in array]
    while sentences and not sentences[-1]:
        sentences.pop()
    return sentences
