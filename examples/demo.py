"""`make demo`: GILE-HAN on the embedded demo dataset, seen and unseen labels, export, serving.

1. Trains GILE-HAN on the 12 seen labels (documents carrying a held-out label
   are removed from training), with a validation split for the threshold.
2. Evaluates seen labels (micro-F1, P@1, P@5) and, after swapping in the 4
   held-out labels' descriptions, the zero-shot ranking (GILE Table 2 metrics)
   next to a random ranking.
3. Exports a SavedModel that tokenises raw text, reloads it, and predicts from
   raw strings, also for label descriptions given only at serving time.
4. Saves a plot of the attention over one test document.

Runs in a few minutes on 2 CPU cores. Outputs go to `artifacts/demo/`.
"""

import os
import pathlib
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from keras_labelemb.datasets import load_demo, remove_unseen_from_train, restrict_labels  # noqa: E402
from keras_labelemb.evaluation import classification_report, ranking_report, sigmoid  # noqa: E402
from keras_labelemb.export import export_text_classifier, load_text_classifier  # noqa: E402
from keras_labelemb.models import gile_han, set_labels  # noqa: E402
from keras_labelemb.text import TextVectorizer, document_tokens  # noqa: E402
from keras_labelemb.training import BestValidationF1, pretrain_word_vectors  # noqa: E402

OUT = pathlib.Path(os.environ.get("DEMO_OUTPUT", "artifacts/demo"))
SENTENCES, WORDS, LABEL_WORDS = 12, 24, 16


def main():
    start = time.time()
    keras.utils.set_random_seed(0)
    data, unseen = load_demo()
    seen = [j for j in range(data.num_labels) if j not in unseen]
    train = restrict_labels(remove_unseen_from_train(data, unseen), seen).validation_split(0.15, seed=0)
    print(
        f"Demo dataset: {len(train.train_texts)} train / {len(train.val_texts)} validation documents "
        f"on {len(seen)} seen labels; {len(data.test_texts)} test documents; "
        f"held-out labels: {[data.label_names[j] for j in unseen]}"
    )

    vectorizer = TextVectorizer(flat=False, max_sentences=SENTENCES, max_sentence_length=WORDS)
    vectorizer.adapt(train.train_texts + data.label_descriptions, min_count=2)

    def encode(texts):
        return vectorizer(tf.constant(texts, dtype=tf.string))

    label_ids = vectorizer.encode_labels(data.label_descriptions, LABEL_WORDS)

    # Word vectors learned from the training text itself (no download): PPMI + truncated SVD.
    vectors = pretrain_word_vectors(encode(train.train_texts).numpy(), vectorizer.vocabulary_size, dim=64)
    model = gile_han(
        vectorizer.vocabulary_size,
        label_ids[seen],
        SENTENCES,
        WORDS,
        word_vectors=vectors,
        units=64,
        dropout=0.2,
        joint_dim=128,
    )
    # jit_compile follows Keras' "auto": XLA on a GPU, off on a CPU-only TensorFlow machine (where it is slower).
    model.compile(keras.optimizers.Adam(2e-3), keras.losses.BinaryCrossentropy(from_logits=True))
    best = BestValidationF1(encode(train.val_texts), train.multi_hot("val"), patience=3)
    model.fit(
        encode(train.train_texts), train.multi_hot("train"), batch_size=32, epochs=15, callbacks=[best], verbose=2
    )

    test_ids = encode(data.test_texts)
    # Seen labels are scored on the test documents that carry one (the others have no right answer).
    seen_test = restrict_labels(data, seen, drop_empty=True)
    seen_scores = sigmoid(model.predict(encode(seen_test.test_texts), verbose=0))
    seen_report = classification_report(seen_test.multi_hot("test"), seen_scores, best.threshold)

    set_labels(model, label_ids[unseen])  # zero-shot: only the descriptions of the held-out labels
    unseen_test = restrict_labels(data, unseen).multi_hot("test")
    zero_shot = ranking_report(unseen_test, model.predict(test_ids, verbose=0))
    random_ranking = ranking_report(unseen_test, np.random.default_rng(0).random(unseen_test.shape))

    print(
        f"\nSeen labels ({len(seen)}), {len(seen_test.test_texts)} test documents that carry one, "
        f"threshold {best.threshold:.3f} "
        f"(best validation epoch {best.best_epoch + 1}):"
    )
    print(
        f"  micro-F1 {seen_report['micro_f1']:.3f}   P@1 {seen_report['precision_at_1']:.3f}   "
        f"P@5 {seen_report['precision_at_5']:.3f}"
    )
    print(f"Unseen labels ({len(unseen)}, never trained on), {zero_shot['documents']} test documents that carry one:")
    print(f"  {'':10s} {'ranking loss':>12s} {'avg precision':>14s} {'one-error':>10s}")
    for name, r in (("GILE-HAN", zero_shot), ("random", random_ranking)):
        print(
            f"  {name:10s} {r['ranking_loss']:12.3f} {r['label_ranking_average_precision']:14.3f} "
            f"{r['one_error']:10.3f}"
        )

    # Export with the full label set (seen + held-out labels), reload, serve raw text.
    set_labels(model, label_ids)
    OUT.mkdir(parents=True, exist_ok=True)
    export_dir = str(OUT / "saved_model")
    export_text_classifier(model, vectorizer, export_dir)
    served = load_text_classifier(export_dir)
    examples = data.test_texts[:2]
    in_memory = sigmoid(model.predict(encode(examples), verbose=0))
    from_raw_text = served.serve(tf.constant(examples))["scores"].numpy()
    print(
        f"\nExported to {export_dir}; reloaded scores equal in-memory scores: "
        f"{np.allclose(in_memory, from_raw_text, atol=1e-6)} "
        f"(max difference {np.abs(in_memory - from_raw_text).max():.1e})"
    )
    for text, scores in zip(examples, from_raw_text):
        top = np.argsort(-scores)[:3]
        print(
            f'  "{text[:70]}..."\n    top labels: '
            + ", ".join(f"{data.label_names[j]} {scores[j]:.2f}" for j in top)
            + f"   (true: {', '.join(data.label_names[j] for j in data.test_labels[data.test_texts.index(text)])})"
        )
    # Labels written at serving time, never seen in training: scored from their descriptions.
    new_labels = {
        "sport": "sport: matches, races, players and teams",
        "money": "money: prices, wages, banks and markets",
        "space": "space: planets, stars, telescopes and orbits",
    }
    request = [data.test_texts[0]]
    added = served.serve_with_labels(tf.constant(request), tf.constant(list(new_labels.values())))["scores"].numpy()[0]
    print(
        "  labels written at serving time for the first document: "
        + ", ".join(f"{name} {score:.2f}" for name, score in zip(new_labels, added))
    )

    plot_attention_example(model, vectorizer, data, seen, label_ids)
    print(f"\nDone in {time.time() - start:.0f} s.")


def plot_attention_example(model, vectorizer, data, seen, label_ids):
    try:
        from keras_labelemb.plotting import plot_attention
    except ImportError:
        return
    encoder = model.get_layer("document_encoder")
    ids = vectorizer(tf.constant(data.test_texts[:1]))
    words = model.get_layer("word_embedding")(ids)
    _, word_scores, sentence_scores = encoder(words, mask=ids != 0, return_attention_scores=True)
    scores = sigmoid(model.predict(ids, verbose=0))[0]
    top = [(data.label_names[j], float(scores[j])) for j in np.argsort(-scores)[:5]]
    path = OUT / "attention.png"
    plot_attention(
        document_tokens(vectorizer, ids[0].numpy()),
        word_scores[0].numpy(),
        sentence_scores[0].numpy(),
        path=str(path),
        title="Attention over a test document",
        label_scores=top,
    )
    print(f"Attention plot: {path}")


if __name__ == "__main__":
    main()
