"""Two tasks (or languages) in one joint space: GILE section 3.3 with the library's layers.

One `GileHead(num_languages=2)` shares `U, V, b_u, b_v` between the tasks and keeps
`w`, `b` and the label set per task; one `HierarchicalAttention(num_languages=2,
share="encoders")` shares the word and sentence encoders and keeps an attention per
task (MHAN-Enc). A functional model with one input and one output per task trains
both at once with `model.fit`, saves to `.keras` and reloads with the same scores.

The embedded demo dataset stands in for two languages: its 16 topics are split into
two label sets of 8, each task sees the documents that carry one of its labels.
Prints each task's test micro-F1 and the same model trained on one task alone.

    python examples/multilingual.py        # about a minute on 2 CPU cores
"""

import os
import pathlib
import tempfile
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from scipy.special import expit  # noqa: E402

from keras_labelemb.datasets import load_demo, restrict_labels  # noqa: E402
from keras_labelemb.evaluation import choose_threshold, classification_report  # noqa: E402
from keras_labelemb.layers import GileHead, HierarchicalAttention  # noqa: E402
from keras_labelemb.text import TextVectorizer  # noqa: E402

TASKS = ("a", "b")
SENTENCES, WORDS, LABEL_WORDS, DIM = 12, 24, 16, 64


def build(vocabulary_size, label_sets, tasks):
    """One input and one output per task, every layer shared as GILE section 3.3 describes."""
    embedding = keras.layers.Embedding(vocabulary_size, DIM, mask_zero=True, name="word_embedding")
    encoder = HierarchicalAttention(
        "dense", DIM, "dense", DIM, num_languages=2, share="encoders", dropout=0.2, name="document_encoder"
    )
    head = GileHead(embedding, joint_dim=128, num_languages=2, language_label_ids=label_sets, name="gile_head")
    inputs = {task: keras.Input((SENTENCES, WORDS), dtype="int32", name=task) for task in tasks}
    outputs = {
        task: head(encoder(embedding(inputs[task]), language=TASKS.index(task)), language=TASKS.index(task))
        for task in tasks
    }
    model = keras.Model(inputs, outputs)
    bce = keras.losses.BinaryCrossentropy(from_logits=True)
    model.compile(keras.optimizers.Adam(2e-3), loss={task: bce for task in tasks})
    return model


def main():
    keras.utils.set_random_seed(0)
    data, _ = load_demo()
    halves = {"a": list(range(0, 8)), "b": list(range(8, 16))}
    splits = {
        task: restrict_labels(data, labels, drop_empty=True).validation_split(0.15) for task, labels in halves.items()
    }
    vectorizer = TextVectorizer(flat=False, max_sentences=SENTENCES, max_sentence_length=WORDS)
    vectorizer.adapt(data.train_texts + data.label_descriptions, min_count=2)

    def encode(texts):
        return vectorizer(tf.constant(texts, dtype=tf.string)).numpy()

    label_sets = [vectorizer.encode_labels([data.label_descriptions[j] for j in halves[t]], LABEL_WORDS) for t in TASKS]
    # model.fit with several inputs takes equal-length arrays: each task's first `n` training documents.
    n = min(len(splits[t].train_texts) for t in TASKS)
    x = {t: encode(splits[t].train_texts[:n]) for t in TASKS}
    y = {t: splits[t].multi_hot("train")[:n] for t in TASKS}

    def report(model, task):
        one_task = keras.Model(model.input[task], model.output[task])  # shares every weight with `model`
        split = splits[task]
        threshold, _ = choose_threshold(
            split.multi_hot("val"), expit(one_task.predict(encode(split.val_texts), verbose=0))
        )
        scores = expit(one_task.predict(encode(split.test_texts), verbose=0))
        return classification_report(split.multi_hot("test"), scores, threshold)["micro_f1"]

    joint = build(vectorizer.vocabulary_size, label_sets, TASKS)
    joint.fit(x, y, batch_size=32, epochs=8, verbose=2)
    # Task b's attention and w, b exist but get no gradient when only task a trains: expected here.
    warnings.filterwarnings("ignore", message="Gradients do not exist")
    alone = build(vectorizer.vocabulary_size, label_sets, ("a",))
    alone.fit({"a": x["a"]}, {"a": y["a"]}, batch_size=32, epochs=8, verbose=0)

    print(f"\nTest micro-F1 ({n} training documents per task, 8 epochs):")
    for task in TASKS:
        print(f"  task {task}, trained jointly: {report(joint, task):.3f}")
    print(f"  task a, trained alone:   {report(alone, 'a'):.3f}")

    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "two_tasks.keras"
        joint.save(path)
        restored = keras.models.load_model(path)
        probe = {t: x[t][:4] for t in TASKS}
        same = all(
            np.array_equal(restored.predict(probe, verbose=0)[t], joint.predict(probe, verbose=0)[t]) for t in TASKS
        )
    print(f"Saved and reloaded (.keras): identical scores for both tasks: {same}")


if __name__ == "__main__":
    main()
