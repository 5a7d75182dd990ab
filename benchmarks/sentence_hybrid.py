"""The sentence-encoder hybrid of attempt 7 (`benchmarks.zero_shot_sentence`) and how its scores are read; no
TensorFlow, so the GPU run of `benchmarks.zero_shot_fine_tune` builds the same model."""

import keras
import numpy as np

from keras_labelemb.layers import HybridHead, LexicalMatchHead, SentenceMatchHead

DOCUMENT_PIECES, DESCRIPTION_PIECES = 256, 64
HYBRID = "hybrid_sentence"
# What the trained hybrid must beat: tf-idf, the GloVe fusion, each of its components and their untrained fusion.
BARS = (
    "tfidf_match",
    "untrained_fusion",
    "component_sentence",
    "component_wordpiece_lexical",
    "untrained_sentence_fusion",
)


def descriptions(vectorizer, texts):
    """Word-piece ids of the label descriptions, trailing padding columns dropped (the label side runs each step)."""
    ids = vectorizer.encode_labels(texts, DESCRIPTION_PIECES)
    return ids[:, : int((ids != 0).sum(axis=1).max())]


def hybrid_head(encoder, ignored_ids, label_ids):
    """tf-idf matching of the word pieces beside the sentence cosine, both z-scored over the labels and weighed."""
    components = [
        LexicalMatchHead(encoder, ignored_ids=ignored_ids, name="wordpiece_lexical"),
        SentenceMatchHead(encoder, name="sentence"),
    ]
    return HybridHead(components, label_ids=label_ids, standardize=True)


def sentence_hybrid(encoder, ignored_ids, label_ids, train_ids):
    """The hybrid over the encoder's outputs computed once (`pooled`, `token_ids`): training it trains the head."""
    head = hybrid_head(encoder, ignored_ids, label_ids)
    inputs = {
        "pooled": keras.Input((encoder.output_dim,), name="pooled"),
        "token_ids": keras.Input((DOCUMENT_PIECES,), dtype="int32", name="token_ids"),
    }
    model = keras.Model(inputs, head(inputs))
    head.adapt(train_ids)  # idf of the word pieces from the split's kept training documents
    return model


def head_scores(head, documents, batch_size=256):
    """`{component name: (N, L), "total": (N, L)}` of `head` on the document dict `documents` (arrays)."""
    parts = {"total": []}
    for start in range(0, len(documents["token_ids"]), batch_size):
        batch = {key: value[start : start + batch_size] for key, value in documents.items()}
        for name, value in head.component_logits(batch).items():
            parts.setdefault(name, []).append(np.asarray(value))
        parts["total"].append(np.asarray(head(batch)))
    return {name: np.concatenate(chunks) for name, chunks in parts.items()}


def dataset_state(encoder, vectorizer, data):
    """What a split of `data` reads from the frozen encoder: its outputs for every text (cached), the
    vectorizer's special ids and the descriptions' word pieces."""
    from benchmarks.encoded import Encoded

    return {
        "encoder": encoder,
        "ignored_ids": vectorizer.special_ids,  # [UNK], [CLS], [SEP]
        "encoded": Encoded(encoder, vectorizer, list(data.train_texts) + list(data.test_texts)),
        "descriptions": descriptions(vectorizer, data.label_descriptions),
    }
