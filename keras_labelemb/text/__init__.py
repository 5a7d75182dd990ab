"""The text pipeline: normalisation, tokenisation, vocabulary, vectorisation, tf.data.

Everything here is TensorFlow / tensorflow-text and runs in-graph, so it works
inside `tf.data.Dataset.map` and in exported SavedModels (which need
`import tensorflow_text` in the loading process).
"""

from keras_labelemb.text.document_tokens import document_tokens
from keras_labelemb.text.make_dataset import make_dataset
from keras_labelemb.text.pretrained_vectors import load_glove_6b, load_word_vectors
from keras_labelemb.text.sentence_encoders import load_minilm
from keras_labelemb.text.text_vectorizer import TextVectorizer
from keras_labelemb.text.tfidf_vectorizer import TfidfVectorizer
from keras_labelemb.text.word_piece_vectorizer import WordPieceVectorizer

__all__ = [
    "TextVectorizer",
    "TfidfVectorizer",
    "WordPieceVectorizer",
    "document_tokens",
    "load_glove_6b",
    "load_minilm",
    "load_word_vectors",
    "make_dataset",
]
