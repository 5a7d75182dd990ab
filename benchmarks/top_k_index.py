"""Top-5 labels among up to 10^6: exact chunked scoring against a maximum-inner-product index, same model.

The model: GILE-WAN trained for `--epochs` on Reuters-21578 (flat, 256 tokens,
GloVe 6B 50-d, dense encoder, `joint_dim` 128), then relabelled (`set_labels`,
zero-shot) with `L` label descriptions: the 90 Reuters descriptions and
`L - 90` drawn ones of realistic length (lengths drawn from the Reuters
descriptions'), each a span of consecutive words of a training document
(real text; before 2026-11-26 words were drawn one by one by frequency,
which made most descriptions strings of stop words). For each `L` of `--labels`:

- `exact`: `predict_top_k` scoring every label, `--label-chunk` labels per
  matrix product, with the label side cached (`head.label_vectors`, computed
  once per label set; the time to compute it is reported apart);
- `ivf`, `ivf_pq`, `hnsw`: `LabelIndex` (faiss) over the same label vectors
  (`ivf_pq`, added after the first run of 2026-11-26 read 12x for `ivf`:
  4-bit product-quantised lists, the best `--refine-factor * k` re-scored
  exactly). Their search setting (IVF `nprobe`, HNSW `ef_search`) is the smallest of a grid
  whose recall@5 against exact top-5 reaches `--target-recall` on the
  validation documents (never on the test documents); recall, throughput
  and memory are then measured on the test documents.

Throughput is documents per second of label scoring alone, on documents
encoded beforehand (exact: `predict_top_k_encoded` with the label side
computed once beforehand, `label_vectors`; index: query vectors and search)
and, beside it, end to end from token ids (exact: a whole `predict_top_k`
call, label side included, as a caller pays it). Peak memory: the resident
memory a phase adds at its peak (sampled every 2 ms, minus the size before it),
for building the label side or the index and for answering the test queries.

Run time on 2 CPU cores: about 25 minutes with the defaults; `--quick` (10^4 labels) about 3.

    python -m benchmarks.top_k_index                     # 10^4, 10^5 and 10^6 labels
    python -m benchmarks.top_k_index --quick

On a machine without TensorFlow (the GPU machines here have JAX only), the
text is turned into ids beforehand where TensorFlow is, and the run reads them:

    python -m benchmarks.top_k_index --write-bundle top_k_bundle.npz     # here: ids, labels, GloVe rows
    KERAS_BACKEND=jax python -m benchmarks.top_k_index --bundle top_k_bundle.npz

Writes `benchmarks/results/top_k_index.json`, whose `summary` holds, for the
largest `L`: `labels`, `recall_at_5`, `speedup_vs_exact`, `peak_memory_mb`
(`{"exact", "index"}`), and the index kind they come from.
"""

import time

import keras
import numpy as np

from benchmarks.benchmark import Arguments
from benchmarks.memory import peak_memory
from benchmarks.relabel import relabel
from benchmarks.report import write_report
from benchmarks.tables import claim, markdown_table, met
from keras_labelemb.evaluation import LabelIndex, predict_top_k
from keras_labelemb.evaluation.label_index import chunked_label_vectors, configure
from keras_labelemb.evaluation.top_k_prediction import encoded_batches, predict_top_k_encoded
from keras_labelemb.models import gile_wan
from keras_labelemb.tasks import LabelClassifier

# HNSW's grid reaches 2048: on 2026-11-26 its choice sat at 512, the edge, with recall 0.79 at 10^5 labels.
SEARCH_GRIDS = {
    "ivf": ("nprobe", (8, 16, 32, 64, 128, 256, 512, 1024, 2048)),
    "ivf_pq": ("nprobe", (8, 16, 32, 64, 128, 256, 512, 1024)),
    "hnsw": ("ef_search", (16, 32, 64, 128, 256, 512, 1024, 2048)),
}


def parse_args(argv=None):
    p = Arguments("top_k_index", __doc__, epochs=3)
    p.add_argument("--labels", default="10000,100000,1000000")
    p.add_argument("--kinds", default="ivf,ivf_pq,hnsw")
    p.add_argument("--refine-factor", type=int, default=10, help="ivf_pq: candidates re-scored exactly, per k")
    p.add_argument("--nlist-scale", type=float, default=4.0, help="IVF lists: nlist-scale * sqrt(L) (LabelIndex's 4)")
    p.add_argument("--coarse", default="flat", choices=("flat", "hnsw"), help="how IVF finds a query's lists")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--joint-dim", type=int, default=128)
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--label-words", type=int, default=12)
    p.add_argument("--label-chunk", type=int, default=65536)
    p.add_argument("--validation-documents", type=int, default=256)
    p.add_argument("--test-documents", type=int, default=1024)
    p.add_argument("--target-recall", type=float, default=0.99)
    p.add_argument("--write-bundle", help="write the token ids, label ids and GloVe rows to this .npz, then stop")
    p.add_argument("--bundle", help="read them from this .npz (written by --write-bundle) instead of the text")
    args = p.parse_args(argv)
    if args.quick:
        args.labels, args.epochs, args.test_documents, args.validation_documents = "10000", 1, 128, 64
    return args


def text_bundle(args):
    """Reuters as arrays: token ids of the documents, label description ids, GloVe rows (needs TensorFlow)."""
    import tensorflow as tf

    from benchmarks.datasets import load_reuters
    from benchmarks.word_vectors import glove50
    from keras_labelemb.text import TextVectorizer

    data = load_reuters().validation_split(0.1, seed=args.seed)
    vectorizer = TextVectorizer(max_tokens=args.max_tokens)
    vectorizer.adapt(data.train_texts, min_count=2)
    label_ids = vectorizer.encode_labels(data.label_descriptions, args.label_words)
    vectors, _ = glove50(vectorizer, label_ids)
    return {
        "train_ids": vectorizer(tf.constant(data.train_texts)).numpy(),
        "train_targets": data.multi_hot("train").astype("uint8"),
        "validation_ids": vectorizer(tf.constant(data.val_texts[: args.validation_documents])).numpy(),
        "test_ids": vectorizer(tf.constant(data.test_texts[: args.test_documents])).numpy(),
        "label_ids": np.asarray(label_ids, "int32"),
        "word_vectors": np.asarray(vectors, "float32"),
    }


def trained_model(args, bundle):
    """GILE-WAN trained on Reuters (its 90 labels), a `LabelClassifier` fed ids (runs under JAX without TensorFlow
    too: --bundle)."""
    keras.utils.set_random_seed(args.seed)
    model = gile_wan(
        len(bundle["word_vectors"]),
        bundle["label_ids"],
        max_tokens=args.max_tokens,
        word_vectors=bundle["word_vectors"],
        fine_tune="documents",
        joint_dim=args.joint_dim,
    )
    classifier = LabelClassifier.from_model(model)
    classifier.compile(keras.optimizers.Adam(2e-3), keras.losses.BinaryCrossentropy(from_logits=True), metrics=[])
    targets = bundle["train_targets"].astype("float32")
    classifier.fit(bundle["train_ids"], targets, batch_size=64, epochs=args.epochs, verbose=2)
    return classifier


def synthetic_labels(args, bundle, count):
    """The real label descriptions, then `count - 90` drawn: real lengths, spans of training documents' words."""
    rng = np.random.default_rng(args.seed)
    label_ids, ids = bundle["label_ids"], bundle["train_ids"]
    words = ids[ids > 0]  # the training documents' words, one stream (a span may cross two documents)
    width = label_ids.shape[1]
    lengths = (label_ids > 0).sum(axis=1)
    extra = max(count - len(label_ids), 0)
    starts = rng.integers(0, len(words) - width, extra)
    drawn = words[starts[:, None] + np.arange(width)]
    drawn[np.arange(width)[None, :] >= rng.choice(lengths, size=extra)[:, None]] = 0
    return np.concatenate([label_ids, drawn.astype("int32")])[:count]


def recall(indices, exact):
    return float(np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(indices, exact)]))


def measure(args, model, documents, num_labels):
    """One label count: exact top-k and each index kind, on the validation and test documents (`model`: the
    trained `LabelClassifier`)."""
    encoder, head = model.encoder, model.head
    k = args.k
    encoded, encode_seconds = {}, {}
    for split, ids in documents.items():
        start = time.time()
        encoded[split] = np.concatenate([keras.ops.convert_to_numpy(h) for h in encoded_batches(encoder, ids, 256)[1]])
        encode_seconds[split] = time.time() - start
    # In chunks, as LabelIndex computes them: all at once, 10^6 GILE labels' word vectors alone are 2.4 GB.
    label_side, _, label_memory = peak_memory(lambda: chunked_label_vectors(head, args.label_chunk))
    label_side, label_seconds, _ = peak_memory(lambda: chunked_label_vectors(head, args.label_chunk))  # warm
    # Kept as a tensor, as a caller would keep the cache: a NumPy cache is converted (copied) at every call.
    label_side = keras.ops.convert_to_tensor(label_side)
    exact = {}
    for split in ("validation", "test"):
        # Twice, timing the second: the first traces the scorer for this split's batch shapes (on 2026-11-26
        # a single call, warmed on the validation documents only, timed tracing: 10^5 labels read 90x slower
        # than 10^4).
        for _ in range(2):
            (indices, _), seconds, memory = peak_memory(
                lambda split=split, side=label_side: predict_top_k_encoded(
                    head, encoded[split], k, label_chunk_size=args.label_chunk, label_vectors=side
                )
            )
        exact[split] = {"indices": indices, "seconds": seconds, "memory": memory}
    del label_side
    start = time.time()
    predict_top_k(model, documents["test"], k, label_chunk_size=args.label_chunk, verbose=0)
    docs = len(encoded["test"])
    row = {
        "labels": num_labels,
        "exact": {
            "docs_per_second": round(docs / exact["test"]["seconds"], 1),
            "end_to_end_docs_per_second": round(docs / (time.time() - start), 1),
            "peak_memory_mb": exact["test"]["memory"],
            "label_side_seconds": round(label_seconds, 1),
            "label_side_memory_mb": label_memory,
            "encode_seconds": round(encode_seconds["test"], 2),
        },
    }
    for kind in args.kinds.split(","):
        index, build_seconds, build_memory = peak_memory(
            lambda kind=kind: LabelIndex(
                model,
                kind=kind,
                nlist=max(1, int(args.nlist_scale * num_labels**0.5)),
                refine_factor=args.refine_factor,
                coarse=args.coarse,
                verbose=0,
            )
        )
        option, grid = SEARCH_GRIDS[kind]
        tried = []
        for value in grid:  # the smallest setting that reaches the target on validation documents
            setattr(index, option, value)
            configure(index.index, kind, index.nprobe, index.ef_search)
            found = recall(
                index.search_vectors(index.query_vectors(encoded["validation"]), k)[0], exact["validation"]["indices"]
            )
            tried.append({option: value, "validation_recall": round(found, 4)})
            if found >= args.target_recall:
                break
        queries = index.query_vectors(encoded["test"])
        (indices, _), seconds, memory = peak_memory(lambda index=index, q=queries: index.search_vectors(q, k))
        query_seconds = peak_memory(lambda index=index: index.query_vectors(encoded["test"]))[1]
        start = time.time()
        index.search(documents["test"], k)
        end_to_end = time.time() - start
        row[kind] = {
            option: getattr(index, option),
            "grid": tried,
            "recall_at_k": round(recall(indices, exact["test"]["indices"]), 4),
            "docs_per_second": round(docs / (seconds + query_seconds), 1),
            "speedup_vs_exact": round(exact["test"]["seconds"] / (seconds + query_seconds), 1),
            "end_to_end_docs_per_second": round(docs / end_to_end, 1),
            "end_to_end_speedup": round(docs / end_to_end / row["exact"]["end_to_end_docs_per_second"], 1),
            "peak_memory_mb": memory,
            "build_seconds": round(build_seconds, 1),
            "build_memory_mb": build_memory,
        }
        print(num_labels, kind, row[kind], flush=True)
        del index
    print(num_labels, "exact", row["exact"], flush=True)
    return row


def summarize(args, rows):
    largest = rows[-1]
    kinds = [kind for kind in args.kinds.split(",") if kind in largest]
    meeting = [kind for kind in kinds if largest[kind]["recall_at_k"] >= args.target_recall]
    best = max(meeting or kinds, key=lambda kind: largest[kind]["speedup_vs_exact"])
    return {
        "labels": largest["labels"],
        "index": best,
        "recall_at_5": largest[best]["recall_at_k"],
        "speedup_vs_exact": largest[best]["speedup_vs_exact"],
        "end_to_end_speedup": largest[best]["end_to_end_speedup"],
        "peak_memory_mb": {"exact": largest["exact"]["peak_memory_mb"], "index": largest[best]["peak_memory_mb"]},
        "met": bool(largest[best]["recall_at_k"] >= args.target_recall and largest[best]["speedup_vs_exact"] >= 20),
    }


def table(args, rows):
    lines = []
    for row in rows:
        exact = row["exact"]
        lines.append(
            [
                f"{row['labels']:,}",
                "exact (chunked, label side cached)",
                "1.000",
                f"{exact['docs_per_second']:,.0f}",
                "1×",
                f"{exact['peak_memory_mb']:,.0f}",
                f"{exact['label_side_seconds']:.0f} s (label side)",
            ]
        )
        for kind in args.kinds.split(","):
            r = row[kind]
            setting = next(key for key in ("nprobe", "ef_search") if key in r)
            lines.append(
                [
                    f"{row['labels']:,}",
                    f"{kind} ({setting} {r[setting]})",
                    f"{r['recall_at_k']:.3f}",
                    f"{r['docs_per_second']:,.0f}",
                    f"{r['speedup_vs_exact']:.0f}×",
                    f"{r['peak_memory_mb']:,.0f}",
                    f"{r['build_seconds']:.0f} s",
                ]
            )
    header = ["labels", "method", f"recall@{args.k}", "docs/s (scoring)", "speed-up", "query peak MB", "build"]
    return markdown_table(header, lines)


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    if args.bundle:
        with np.load(args.bundle) as stored:
            bundle = dict(stored)
    else:
        bundle = text_bundle(args)
    if args.write_bundle:
        np.savez_compressed(args.write_bundle, **bundle)
        return
    model = trained_model(args, bundle)
    documents = {
        "validation": bundle["validation_ids"][: args.validation_documents],
        "test": bundle["test_ids"][: args.test_documents],
    }
    measured = []
    for count in (int(v) for v in args.labels.split(",")):
        relabel(model, synthetic_labels(args, bundle, count))
        measured.append(measure(args, model, documents, count))
        write_report(
            args.output,
            "top-k over huge label sets: exact vs index",
            "benchmarks.top_k_index",
            args,
            argv,
            {"rows": measured},
            summarize(args, measured),
            table(args, measured),
            start,
            rows=rows,
        )


def rows(report):
    """The largest label set's index against exact scoring: recall@5 and the throughput ratio."""
    s = report["summary"]
    memory = s["peak_memory_mb"]
    return [
        claim(
            f"Top-5 of {s['labels']:,} labels (GILE-WAN trained on Reuters, relabelled): a maximum-inner-product index",
            f"{s['index']}: recall@5 {s['recall_at_5']:.3f}, {s['speedup_vs_exact']:.1f}× the throughput "
            f"(query peak {memory['index']:,.0f} MB)",
            f"exact chunked scoring, label side cached (1×; query peak {memory['exact']:,.0f} MB)",
            "-",
            "recall@5 ≥ 0.99 and ≥ 20×: " + met(s["met"]),
            "[top-k index](pages/top-k-index.md)",
            f"Top-5 of {s['labels']:,} labels: an index against exact scoring",
        )
    ]


if __name__ == "__main__":
    main()
