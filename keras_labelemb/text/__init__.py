"""The text pipeline: normalisation, tokenisation, vocabulary, vectorisation, tf.data.

Everything here is TensorFlow / tensorflow-text and runs in-graph, so it works
inside `tf.data.Dataset.map` and in exported SavedModels (which need
`import tensorflow_text` in the loading process).
"""

from keras_labelemb.losses.label_sequences import frequency_order, label_sequences, label_sequences_to_multi_hot
from keras_labelemb.renamed import moved_attribute
from keras_labelemb.text.document_tokens import document_tokens
from keras_labelemb.text.make_dataset import make_dataset
from keras_labelemb.text.multi_hot import multi_hot
from keras_labelemb.text.normalize_text import NUM_TOKEN, normalize_text
from keras_labelemb.text.pretrained_vectors import (
    WordVectorCoverage,
    download_glove_6b,
    load_glove_6b,
    load_word_vectors,
)
from keras_labelemb.text.sentence_encoders import load_minilm
from keras_labelemb.text.split_sentences import split_sentences
from keras_labelemb.text.target_vocabulary import STOP_WORDS, target_vocabulary
from keras_labelemb.text.text_vectorizer import TextVectorizer
from keras_labelemb.text.tfidf_vectorizer import TfidfVectorizer
from keras_labelemb.text.tokenize import tokenize
from keras_labelemb.text.vocabulary import (
    PAD_TOKEN,
    UNK_TOKEN,
    build_vocabulary,
    count_tokens,
    load_vocabulary,
    save_vocabulary,
    vocabulary_from_counts,
)
from keras_labelemb.text.word_piece_vectorizer import WordPieceVectorizer

__all__ = [
    "NUM_TOKEN",
    "PAD_TOKEN",
    "STOP_WORDS",
    "TextVectorizer",
    "TfidfVectorizer",
    "UNK_TOKEN",
    "WordPieceVectorizer",
    "WordVectorCoverage",
    "build_vocabulary",
    "count_tokens",
    "document_tokens",
    "download_glove_6b",
    "frequency_order",
    "label_sequences",
    "label_sequences_to_multi_hot",
    "load_glove_6b",
    "load_minilm",
    "load_vocabulary",
    "load_word_vectors",
    "make_dataset",
    "multi_hot",
    "normalize_text",
    "save_vocabulary",
    "split_sentences",
    "target_vocabulary",
    "tokenize",
    "vocabulary_from_counts",
]


def __getattr__(name):  # names moved elsewhere say where (keras_labelemb/renamed.py)
    return moved_attribute(__name__, name)
