"""`make demo`: a `LabelClassifier` (GILE-HAN) on the embedded demo dataset, from raw strings to label names.

1. Trains the `gile_han` preset on 12 seen labels from raw texts and label descriptions
   (documents carrying a held-out label are removed from training), its word table started
   from word vectors of the training texts (PPMI + SVD), early stopping and thresholds on a
   validation split.
2. Evaluates seen labels (micro-F1 of the predicted label names, P@1) and, after relabelling
   with the 4 held-out labels' descriptions only, the zero-shot ranking (GILE Table 2 metrics)
   next to a random ranking.
3. Saves and reloads the classifier (`.keras`), exports a SavedModel that reads raw strings,
   reloads it and serves it, also for labels written only at serving time.
4. Saves a plot of the attention over one test document.

Runs in about a minute on 2 CPU cores. Outputs go to `artifacts/demo/`.
"""

import os
import pathlib
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from keras_labelemb.datasets import load_demo, remove_unseen_from_train, restrict_labels  # noqa: E402
from keras_labelemb.evaluation import ranking_report  # noqa: E402
from keras_labelemb.export import load_text_classifier  # noqa: E402
from keras_labelemb.tasks import LabelClassifier  # noqa: E402
from keras_labelemb.training import pretrain_word_vectors  # noqa: E402

OUT = pathlib.Path(os.environ.get("DEMO_OUTPUT", "artifacts/demo"))
EPOCHS = int(os.environ.get("DEMO_EPOCHS", "20"))  # the test suite runs the demo with 2
tf.get_logger().setLevel("ERROR")  # TensorFlow's retracing notes after each relabelling: the demo relabels on purpose


def label_names(data, split):
    """Each text's labels by name, as `fit` takes them."""
    return [[data.label_names[j] for j in labels] for labels in getattr(data, f"{split}_labels")]


def micro_f1(predicted, truth):
    """Micro-F1 of predicted label-name lists against the true ones."""
    hits = sum(len(set(p) & set(t)) for p, t in zip(predicted, truth))
    return 2 * hits / max(1, sum(map(len, predicted)) + sum(map(len, truth)))


def main():
    start = time.time()
    keras.utils.set_random_seed(0)
    data, unseen = load_demo()
    seen = [j for j in range(data.num_labels) if j not in unseen]
    train = restrict_labels(remove_unseen_from_train(data, unseen), seen).validation_split(0.15, seed=0)
    described = dict(zip(data.label_names, data.label_descriptions))
    print(
        f"Demo dataset: {len(train.train_texts)} train / {len(train.val_texts)} validation documents "
        f"on {len(seen)} seen labels; {len(data.test_texts)} test documents; "
        f"held-out labels: {[data.label_names[j] for j in unseen]}"
    )

    seen_labels = {data.label_names[j]: described[data.label_names[j]] for j in seen}
    classifier = LabelClassifier.from_preset(
        "gile_han", labels=seen_labels, max_sentences=12, max_sentence_length=24, embedding_dim=64
    )
    classifier.adapt(train.train_texts)  # the vocabulary of the training texts and descriptions; builds the layers
    # Word vectors from the training texts themselves (PPMI + SVD, no download): with them the descriptions of
    # labels never trained on are read in words the model knows (zero-shot average precision 0.64 -> 0.8 here).
    embedding = classifier.encoder.layers[0]
    ids = classifier.preprocessor.vectorizer(tf.constant(train.train_texts)).numpy()
    embedding.build()
    embedding.set_weights([pretrain_word_vectors(ids, classifier.preprocessor.vocabulary_size, dim=64)])
    # 1,700 documents: twice the default step (Adam 1e-3 had not left the label prior after 6 epochs).
    classifier.compile(optimizer=keras.optimizers.Adam(2e-3))
    stop = keras.callbacks.EarlyStopping("val_micro_f1", mode="max", patience=3, restore_best_weights=True)
    classifier.fit(
        train.train_texts,
        label_names(train, "train"),
        validation_data=(train.val_texts, label_names(train, "val")),  # early stopping, then the thresholds
        epochs=EPOCHS,
        callbacks=[stop],
        verbose=2,
    )

    # Seen labels, on the test documents that carry one (the others have no right answer).
    seen_test = restrict_labels(data, seen, drop_empty=True)
    truth = label_names(seen_test, "test")
    predicted = classifier.predict_labels(seen_test.test_texts)
    top = classifier.predict_top_k(seen_test.test_texts, k=1)
    precision_at_1 = np.mean([ranked[0][0] in labels for ranked, labels in zip(top, truth)])

    # Zero-shot: only the held-out labels' descriptions, never trained on.
    classifier.set_labels({data.label_names[j]: described[data.label_names[j]] for j in unseen})
    unseen_test = restrict_labels(data, unseen).multi_hot("test")
    zero_shot = ranking_report(unseen_test, classifier.predict(data.test_texts))
    random_ranking = ranking_report(unseen_test, np.random.default_rng(0).random(unseen_test.shape))

    print(
        f"\nSeen labels ({len(seen)}), {len(truth)} test documents that carry one, "
        f"thresholds chosen on validation ({classifier.threshold_mode}):"
    )
    print(f"  micro-F1 {micro_f1(predicted, truth):.3f}   P@1 {precision_at_1:.3f}")
    print(f"Unseen labels ({len(unseen)}, never trained on), {zero_shot['documents']} test documents that carry one:")
    print(f"  {'':10s} {'ranking loss':>12s} {'avg precision':>14s} {'one-error':>10s}")
    for name, r in (("GILE-HAN", zero_shot), ("random", random_ranking)):
        print(
            f"  {name:10s} {r['ranking_loss']:12.3f} {r['label_ranking_average_precision']:14.3f} "
            f"{r['one_error']:10.3f}"
        )

    # Every label (seen and held out), saved, reloaded, exported and served from raw strings.
    classifier.set_labels(described)
    OUT.mkdir(parents=True, exist_ok=True)
    classifier.save(OUT / "classifier.keras")
    reloaded = keras.saving.load_model(OUT / "classifier.keras")
    examples = data.test_texts[:2]
    in_memory = classifier.predict(examples)
    export_dir = str(OUT / "saved_model")
    classifier.export(export_dir)
    served = load_text_classifier(export_dir)
    from_raw_text = served.serve(tf.constant(examples))["scores"].numpy()
    print(
        f"\nSaved to {OUT / 'classifier.keras'} (reloaded scores equal: "
        f"{np.allclose(reloaded.predict(examples), in_memory, atol=1e-6)}); exported to {export_dir} "
        f"(served scores equal: {np.allclose(in_memory, from_raw_text, atol=1e-5)}, "
        f"max difference {np.abs(in_memory - from_raw_text).max():.1e})"
    )
    for text, ranked in zip(examples, classifier.predict_top_k(examples, k=3)):
        true = ", ".join(data.label_names[j] for j in data.test_labels[data.test_texts.index(text)])
        print(
            f'  "{text[:70]}..."\n    top labels: '
            + ", ".join(f"{n} {s:.2f}" for n, s in ranked)
            + f"   (true: {true})"
        )
    # Labels written at serving time, never seen in training: scored from their descriptions.
    new_labels = {
        "sport": "sport: matches, races, players and teams",
        "money": "money: prices, wages, banks and markets",
        "space": "space: planets, stars, telescopes and orbits",
    }
    request = tf.constant(examples[:1])
    added = served.serve_with_labels(request, tf.constant(list(new_labels.values())))["scores"].numpy()[0]
    print(
        "  labels written at serving time for the first document: "
        + ", ".join(f"{name} {score:.2f}" for name, score in zip(new_labels, added))
    )

    plot_attention_example(classifier, data)
    print(f"\nDone in {time.time() - start:.0f} s.")


def plot_attention_example(classifier, data):
    try:
        from keras_labelemb.plotting import plot_attention
    except ImportError:
        return
    from keras_labelemb.text import document_tokens

    embedding, encoder = classifier.encoder.layers  # the preset's encoder: word embedding, then HAN
    vectorizer = classifier.preprocessor.vectorizer
    ids = vectorizer(tf.constant(data.test_texts[:1]))
    _, word_scores, sentence_scores = encoder(embedding(ids), mask=ids != 0, return_attention_scores=True)
    path = OUT / "attention.png"
    plot_attention(
        document_tokens(vectorizer, ids[0].numpy()),
        word_scores[0].numpy(),
        sentence_scores[0].numpy(),
        path=str(path),
        title="Attention over a test document",
        label_scores=classifier.predict_top_k(data.test_texts[:1], k=5)[0],
    )
    print(f"Attention plot: {path}")


if __name__ == "__main__":
    main()
