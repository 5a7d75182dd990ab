"""The embedded demo dataset: generated multi-label news with label descriptions.

`load_demo()` builds, from word lists shipped with the package
(`demo_data/demo_words.json`) and without any download, a small multi-label
corpus of English news-like documents about 16 topics in 4 families, each
topic with a one-sentence description. It is meant for examples, tests and
`make demo`: a model trains on it in a minute or two on a laptop CPU, and it
is built so that **zero-shot classification is learnable**.

Labels (index: code), by family; the held-out ("unseen") label of each
family is marked with *:

- sports: 0 football, 1 tennis, 2 cycling, 3 swimming*
- economy: 4 inflation, 5 interest-rates, 6 trade, 7 unemployment*
- science: 8 astronomy, 9 genetics, 10 climate, 11 marine-biology*
- culture: 12 film, 13 music, 14 literature, 15 theatre*

`load_demo()` returns `(data, unseen)` with `unseen == [3, 7, 11, 15]`; the
training split still contains the documents of the unseen labels: remove them
with `remove_unseen_from_train(data, unseen)` for zero-shot experiments.

How it is made (all from a numpy `RandomState(seed)`, whose streams numpy
keeps fixed, so the output is the same on every machine):

- Every topic has 20 topic words and phrases, and every family about 18
  family words and actors plus five stock phrases. Topics of a family share some words
  (`"race"` in cycling and swimming, `"actors"` in film and theatre,
  `"wages"` in inflation and unemployment), and some words are polysemous
  across families (`"stage"`, `"tour"`, `"record"`, `"court"`), so no
  single word decides a label.
- A description is `"<name>: <sentence>"`; its content words are topic words
  of the label plus family words. Unseen descriptions share family words
  with the seen labels of their family and topic words with the documents.
- A document has 1 to 3 labels (55% / 33% / 12%); the first is drawn by
  topic frequency, further ones from the same family with probability 0.65.
  It is written as sentences from 30 templates: 5 to 8 sentences about the
  first label, 3 to 4 about each other label, each filling its slots with 1
  to 3 distinct topic words and sometimes a family word, actor ("critics",
  "economists") or stock phrase; plus 2 to 4 generic sentences (people,
  places, days) and, in 60% of documents, one sentence that mentions a word
  of a topic the document is not about, half the time a sibling topic of
  the same family. Sentences are shuffled behind the first label's first
  sentence; documents run to about 65 to 230 words (median 120), 12
  sentences on average.
- Zero-shot signal: documents of an unseen label contain its topic words
  (many of them in its description) and its family's words, so matching
  document words to description words ranks unseen labels far above chance
  (the tests check this with a tf-idf cosine baseline).

Sizes by default: 3,000 training documents (2,014 once the documents
of unseen labels are removed) and 600 test documents, 1.58 labels per
document.
"""

import json
from importlib import resources

import numpy as np

from keras_labelemb.datasets.text_classification_data import TextClassificationData

# The word lists are data (demo_data/demo_words.json), the generator below is code.
_WORDS = json.loads(resources.files("keras_labelemb.datasets").joinpath("demo_data/demo_words.json").read_text("utf-8"))
# Per family: "agents" fill {a} slots (who acts or reacts), "words" fill {f}
# slots (what the family is about), "phrases" fill {p} slots.
FAMILIES = _WORDS["families"]
# (code, family, prior weight, unseen, description, topic words).
TOPICS = [(t["code"], t["family"], t["prior"], t["unseen"], t["description"], t["words"]) for t in _WORDS["topics"]]
# Sentence templates. Slots: {t} a topic word, {f} a family word, {p} a family
# phrase, {name} a person, {place} a city, {day} a day, {num} a number.
TOPIC_TEMPLATES = _WORDS["topic_templates"]
GENERIC_SENTENCES = _WORDS["generic_sentences"]
DISTRACTOR_TEMPLATES = _WORDS["distractor_templates"]
FIRST_NAMES = _WORDS["first_names"]
LAST_NAMES = _WORDS["last_names"]
PLACES = _WORDS["places"]
DAYS = _WORDS["days"]

DISTRACTOR_RATE = 0.6

LABEL_NAMES = [t[0] for t in TOPICS]
LABEL_DESCRIPTIONS = [t[4] for t in TOPICS]
UNSEEN_LABELS = [j for j, t in enumerate(TOPICS) if t[3]]


class _Writer:
    """Writes documents from a `RandomState` (legacy numpy stream: fixed across versions)."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        priors = np.array([t[2] for t in TOPICS], dtype=np.float64)
        self.priors = priors / priors.sum()
        self.families = [t[1] for t in TOPICS]

    def pick(self, items):
        return items[self.rng.randint(len(items))]

    def fill(self, template, topic_words, family):
        out = template
        slots = out.count("{t}")
        if slots:  # Distinct topic words within a sentence.
            for k in self.rng.choice(len(topic_words), size=slots, replace=False):
                out = out.replace("{t}", topic_words[k], 1)
        for slot, key in (("{a}", "agents"), ("{f}", "words"), ("{p}", "phrases")):
            while slot in out:
                out = out.replace(slot, self.pick(FAMILIES[family][key]), 1)
        while "{name}" in out:
            out = out.replace("{name}", f"{self.pick(FIRST_NAMES)} {self.pick(LAST_NAMES)}", 1)
        out = out.replace("{place}", self.pick(PLACES))
        out = out.replace("{day}", self.pick(DAYS))
        out = out.replace("{num}", str(self.rng.randint(2, 60)))
        return out[0].upper() + out[1:] + "."

    def labels(self):
        k = 1 + self.rng.choice(3, p=[0.55, 0.33, 0.12])
        first = int(self.rng.choice(len(TOPICS), p=self.priors))
        labels = [first]
        while len(labels) < k:
            weights = self.priors.copy()
            weights[labels] = 0.0
            if self.rng.rand() < 0.65:
                same = np.array([f == self.families[first] for f in self.families])
                if (weights * same).sum() > 0:
                    weights = weights * same
            labels.append(int(self.rng.choice(len(TOPICS), p=weights / weights.sum())))
        return labels

    def document(self):
        labels = self.labels()
        lead = None
        sentences = []
        for position, label in enumerate(labels):
            _, family, _, _, _, words = TOPICS[label]
            count = self.rng.randint(5, 9) if position == 0 else self.rng.randint(3, 5)
            for i in range(count):
                sentence = self.fill(self.pick(TOPIC_TEMPLATES), words, family)
                if position == 0 and i == 0:
                    lead = sentence
                else:
                    sentences.append(sentence)
        for _ in range(self.rng.randint(2, 5)):
            sentences.append(self.fill(self.pick(GENERIC_SENTENCES), [], None))
        if self.rng.rand() < DISTRACTOR_RATE:
            # A passing mention of a topic the document is not about: half the
            # time a sibling topic of the same family (the harder confusion).
            others = [j for j in range(len(TOPICS)) if j not in labels]
            siblings = [j for j in others if self.families[j] == self.families[labels[0]]]
            pool = siblings if siblings and self.rng.rand() < 0.5 else others
            other = pool[self.rng.randint(len(pool))]
            sentences.append(self.fill(self.pick(DISTRACTOR_TEMPLATES), TOPICS[other][5], TOPICS[other][1]))
        order = self.rng.permutation(len(sentences))
        text = " ".join([lead] + [sentences[i] for i in order])
        return text, sorted(labels)


def load_demo(num_train=3000, num_test=600, seed=0):
    """Generates the demo dataset (see the module docstring for how).

    Args:
        num_train: number of training documents. Defaults to 3000.
        num_test: number of test documents. Defaults to 600.
        seed: random seed; the defaults give the dataset the examples and
            tests use. Defaults to 0. Test documents are generated after the
            training ones, so a different `num_train` also changes the test set.

    Returns:
        `(data, unseen)`: a `TextClassificationData` with 16 labels (ids
        `"train/<i>"`, `"test/<i>"`) and the recommended held-out label
        indices `[3, 7, 11, 15]` (swimming, unemployment, marine-biology,
        theatre). The training split still contains documents of the unseen
        labels; see `remove_unseen_from_train`.

    Example:

    >>> data, unseen = load_demo()
    >>> data.num_labels, [data.label_names[j] for j in unseen]
    (16, ['swimming', 'unemployment', 'marine-biology', 'theatre'])
    """
    if num_train < 1 or num_test < 1:
        raise ValueError(
            f"`num_train` and `num_test` must be positive. Received: num_train={num_train}, num_test={num_test}"
        )
    writer = _Writer(seed)
    docs = [writer.document() for _ in range(num_train + num_test)]
    train, test = docs[:num_train], docs[num_train:]
    data = TextClassificationData(
        train_texts=[text for text, _ in train],
        train_labels=[labels for _, labels in train],
        test_texts=[text for text, _ in test],
        test_labels=[labels for _, labels in test],
        label_names=list(LABEL_NAMES),
        label_descriptions=list(LABEL_DESCRIPTIONS),
        train_ids=[f"train/{i}" for i in range(num_train)],
        test_ids=[f"test/{i}" for i in range(num_test)],
    )
    return data, list(UNSEEN_LABELS)
