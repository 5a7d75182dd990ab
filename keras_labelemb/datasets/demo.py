"""The embedded demo dataset: generated multi-label news with label descriptions.

`load_demo()` builds, in code and without any data file, a small multi-label
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

import numpy as np

from keras_labelemb.datasets.text_classification_data import TextClassificationData

# Per family: "agents" fill {a} slots (who acts or reacts), "words" fill {f}
# slots (what the family is about), "phrases" fill {p} slots.
FAMILIES = {
    "sports": {
        "agents": ["fans", "athletes", "coach", "team", "crowd", "organisers", "players"],
        "words": [
            "sport",
            "season",
            "championship",
            "victory",
            "title",
            "competition",
            "tournament",
            "final",
            "medal",
            "training",
            "world championship",
        ],
        "phrases": [
            "after a tense weekend of competition",
            "in front of thousands of fans",
            "ahead of the championship final",
            "as the season reached its decisive stage",
            "according to the national sport federation",
        ],
    },
    "economy": {
        "agents": [
            "economists",
            "government",
            "analysts",
            "investors",
            "finance ministry",
            "statistics office",
            "business leaders",
        ],
        "words": [
            "economy",
            "markets",
            "growth",
            "prices",
            "figures",
            "quarter",
            "forecast",
            "policy",
            "recession",
            "budget",
            "economic outlook",
        ],
        "phrases": [
            "as markets digested the latest figures",
            "according to official statistics",
            "in a note to investors",
            "amid fears of a slowing economy",
            "as analysts revised their forecast",
        ],
    },
    "science": {
        "agents": [
            "scientists",
            "researchers",
            "institute",
            "university",
            "laboratory team",
            "research group",
            "science academy",
        ],
        "words": [
            "study",
            "research",
            "evidence",
            "experiment",
            "journal",
            "findings",
            "discovery",
            "data",
            "science",
            "measurements",
            "field work",
        ],
        "phrases": [
            "according to a study published in a leading journal",
            "as researchers reviewed the evidence",
            "in findings presented at a scientific conference",
            "after years of careful measurements",
            "in a paper by an international team of scientists",
        ],
    },
    "culture": {
        "agents": ["audience", "artists", "critics", "public", "organisers", "producers"],
        "words": [
            "performance",
            "premiere",
            "festival",
            "review",
            "award",
            "culture",
            "arts",
            "tickets",
            "acclaim",
            "season",
            "stage",
        ],
        "phrases": [
            "in front of a packed audience",
            "as critics gathered for the festival",
            "to warm reviews from the critics",
            "at a ceremony attended by many artists",
            "after a sold out premiere",
        ],
    },
}

# (code, family, prior weight, unseen, description, topic words).
TOPICS = [
    (
        "football",
        "sports",
        1.6,
        False,
        "football: a football match between clubs of the league, with every goal "
        "and penalty, the striker, the goalkeeper, the referee, transfer news and "
        "the fans in the stadium.",
        [
            "football",
            "goal",
            "goals",
            "striker",
            "goalkeeper",
            "penalty",
            "league",
            "midfielder",
            "defender",
            "referee",
            "pitch",
            "club",
            "clubs",
            "transfer",
            "header",
            "offside",
            "corner kick",
            "stadium",
            "league table",
            "match",
        ],
    ),
    (
        "tennis",
        "sports",
        1.0,
        False,
        "tennis: a tennis match on a grass court or clay court, with the serve, "
        "aces, each set and tiebreak, the umpire and the grand slam tournament.",
        [
            "tennis",
            "racket",
            "serve",
            "aces",
            "set",
            "tiebreak",
            "court",
            "grass court",
            "clay court",
            "volley",
            "backhand",
            "forehand",
            "grand slam",
            "baseline",
            "double fault",
            "seeded player",
            "rally",
            "net",
            "umpire",
            "match",
        ],
    ),
    (
        "cycling",
        "sports",
        0.7,
        False,
        "cycling: road cycling, where riders race a bike in the peloton, climb a "
        "mountain stage, attack in a breakaway and sprint for the yellow jersey of "
        "the tour.",
        [
            "cycling",
            "cyclist",
            "riders",
            "bike",
            "bicycle",
            "peloton",
            "stage",
            "sprint",
            "climb",
            "mountain stage",
            "yellow jersey",
            "tour",
            "pedal",
            "breakaway",
            "time trial",
            "descent",
            "road race",
            "race",
            "gears",
            "team car",
        ],
    ),
    (
        "swimming",
        "sports",
        0.8,
        True,
        "swimming: a swimming race in the pool, where each swimmer competes in "
        "freestyle, breaststroke, backstroke, butterfly, medley and relay heats for a "
        "medal and a world record.",
        [
            "swimming",
            "swimmer",
            "swimmers",
            "pool",
            "freestyle",
            "breaststroke",
            "butterfly",
            "backstroke",
            "lap",
            "lane",
            "relay",
            "medley",
            "stroke",
            "world record",
            "heats",
            "race",
            "diving",
            "olympic pool",
            "goggles",
            "water",
        ],
    ),
    (
        "inflation",
        "economy",
        1.3,
        False,
        "inflation: inflation and rising consumer prices, the price index, the cost "
        "of living, wages and the purchasing power of households.",
        [
            "inflation",
            "consumer prices",
            "price index",
            "cost of living",
            "rising prices",
            "wages",
            "deflation",
            "food prices",
            "energy prices",
            "purchasing power",
            "core inflation",
            "annual rate",
            "price pressures",
            "households",
            "rents",
            "fuel costs",
            "shop prices",
            "price rises",
            "consumer price index",
            "living costs",
        ],
    ),
    (
        "interest-rates",
        "economy",
        1.2,
        False,
        "interest rates: central bank decisions on interest rates, a rate hike or "
        "rate cut, borrowing costs, mortgages, loans and bond yields.",
        [
            "interest rates",
            "central bank",
            "interest",
            "rate hike",
            "rate cut",
            "basis points",
            "monetary policy",
            "borrowing costs",
            "loans",
            "mortgage",
            "mortgages",
            "bonds",
            "bond yields",
            "lending",
            "governor",
            "credit",
            "savers",
            "deposits",
            "benchmark rate",
            "borrowing",
        ],
    ),
    (
        "trade",
        "economy",
        1.0,
        False,
        "trade: trade in goods between trading partners, exports and imports, "
        "tariffs, customs, the trade deficit or surplus and a free trade agreement.",
        [
            "trade",
            "exports",
            "imports",
            "tariffs",
            "trade deficit",
            "surplus",
            "customs",
            "shipments",
            "goods",
            "trading partners",
            "quotas",
            "trade agreement",
            "dumping",
            "trade balance",
            "negotiators",
            "port",
            "containers",
            "export",
            "import duties",
            "free trade",
        ],
    ),
    (
        "unemployment",
        "economy",
        0.8,
        True,
        "unemployment: the labour market and jobs, the unemployment rate, jobless "
        "workers, hiring, layoffs and wages in the economy.",
        [
            "unemployment",
            "jobs",
            "jobless",
            "workers",
            "hiring",
            "layoffs",
            "employment",
            "payrolls",
            "labour market",
            "job seekers",
            "vacancies",
            "redundancies",
            "workforce",
            "unemployment benefits",
            "employers",
            "wages",
            "unemployment rate",
            "job cuts",
            "jobless claims",
            "job centres",
        ],
    ),
    (
        "astronomy",
        "science",
        0.9,
        False,
        "astronomy: astronomers observe stars, planets, galaxies and a comet or "
        "asteroid with a telescope at the observatory to study the universe.",
        [
            "astronomy",
            "astronomers",
            "telescope",
            "galaxy",
            "galaxies",
            "stars",
            "planet",
            "planets",
            "orbit",
            "comet",
            "asteroid",
            "nebula",
            "supernova",
            "observatory",
            "solar system",
            "moon",
            "light years",
            "black hole",
            "exoplanet",
            "universe",
        ],
    ),
    (
        "genetics",
        "science",
        0.7,
        False,
        "genetics: research on genes, DNA and the genome, mutations and inherited "
        "traits, with sequencing of the cells and protein of many species.",
        [
            "genetics",
            "genes",
            "gene",
            "dna",
            "genome",
            "mutation",
            "mutations",
            "chromosome",
            "heredity",
            "sequencing",
            "inherited traits",
            "protein",
            "cells",
            "gene editing",
            "variants",
            "traits",
            "molecular biology",
            "rna",
            "species",
            "inherited",
        ],
    ),
    (
        "climate",
        "science",
        1.2,
        False,
        "climate: climate change and global warming, rising temperatures, carbon "
        "emissions, greenhouse gases, melting ice and sea level rise.",
        [
            "climate",
            "climate change",
            "global warming",
            "warming",
            "temperatures",
            "emissions",
            "carbon",
            "greenhouse gases",
            "ice sheets",
            "sea level",
            "drought",
            "heatwave",
            "glaciers",
            "atmosphere",
            "rainfall",
            "fossil fuels",
            "melting ice",
            "carbon dioxide",
            "weather",
            "heat",
        ],
    ),
    (
        "marine-biology",
        "science",
        0.8,
        True,
        "marine biology: research on life in the ocean and the sea, from coral "
        "reefs, fish and whales to plankton and deep sea species.",
        [
            "marine biology",
            "ocean",
            "sea",
            "marine",
            "coral",
            "coral reefs",
            "reef",
            "fish",
            "whales",
            "plankton",
            "deep sea",
            "seabed",
            "tides",
            "currents",
            "sharks",
            "dolphins",
            "species",
            "ocean floor",
            "marine life",
            "sea water",
        ],
    ),
    (
        "film",
        "culture",
        1.2,
        False,
        "film: films and movies, the director and actors, a cinema screening for "
        "the audience, box office results and film studios.",
        [
            "film",
            "films",
            "movie",
            "director",
            "actors",
            "actress",
            "cinema",
            "screenplay",
            "box office",
            "scene",
            "trailer",
            "studio",
            "camera",
            "sequel",
            "cast",
            "screening",
            "film studios",
            "movies",
            "documentary",
            "blockbuster",
        ],
    ),
    (
        "music",
        "culture",
        1.0,
        False,
        "music: music albums and songs, the band and the singer, concerts on tour, the orchestra and the charts.",
        [
            "music",
            "album",
            "albums",
            "band",
            "singer",
            "songs",
            "concert",
            "guitar",
            "orchestra",
            "tour",
            "lyrics",
            "charts",
            "record label",
            "drummer",
            "melody",
            "musicians",
            "vinyl",
            "concerts",
            "singers",
            "record",
        ],
    ),
    (
        "literature",
        "culture",
        0.6,
        False,
        "literature: novels and books, authors and writers, poetry, the publisher, readers and a literary prize.",
        [
            "literature",
            "novel",
            "novels",
            "book",
            "books",
            "author",
            "authors",
            "writer",
            "writers",
            "poetry",
            "poems",
            "chapters",
            "publisher",
            "literary prize",
            "fiction",
            "readers",
            "bookshops",
            "memoir",
            "manuscript",
            "literary",
        ],
    ),
    (
        "theatre",
        "culture",
        0.8,
        True,
        "theatre: theatre plays on stage, a playwright and actors, rehearsals, "
        "drama and musicals in a new production for the audience.",
        [
            "theatre",
            "play",
            "plays",
            "playwright",
            "actors",
            "stage",
            "rehearsal",
            "rehearsals",
            "drama",
            "curtain call",
            "director",
            "musical",
            "musicals",
            "scenes",
            "production",
            "costumes",
            "west end",
            "broadway",
            "script",
            "theatre company",
        ],
    ),
]

# Sentence templates. Slots: {t} a topic word, {f} a family word, {p} a family
# phrase, {name} a person, {place} a city, {day} a day, {num} a number.
TOPIC_TEMPLATES = [
    "Talk of the {t} dominated {day}",
    "{name} said the {t} and the {t} would shape the weeks ahead",
    "Observers in {place} said the {t} had changed the picture for the {f}",
    "There was fresh debate about the {t}, the {t} and the {t}",
    "{name}, speaking in {place}, described the {t} as remarkable",
    "The {t} drew attention {p}",
    "Much of the discussion focused on the {t} {p}",
    "{name} pointed to the {t} as the key factor",
    "Reports from {place} suggested that the {t} remained far from settled",
    "The latest news on the {t} came {p}",
    "It was the {t} rather than the {t} that surprised the {a}",
    "In {place}, the {t} dominated the headlines for {num} days",
    "{name} warned that the {t} could affect the {f}",
    "Few had expected the {t} to matter so much for the {f}",
    "The {a} discussed the {t} and the {t} at length",
    "A spokesperson said the {t} would be reviewed {p}",
    "According to {name}, the {t} marked a turning point",
    "Questions about the {t} came up again in {place}",
    "The {a} welcomed the news about the {t} on {day}",
    "Several people linked the {t} to the {t}",
    "Reporters have followed the {t} closely {p}",
    "{name} called the {t} the biggest story of the year",
    "The importance of the {t} became clear to the {a}",
    "On {day}, attention turned to the {t} and the {t}",
    "Critics of the {t} argued that the {a} had moved too fast",
    "{num} people gathered in {place} to hear about the {t}",
    "Many saw the {t} as a sign of things to come for the {f}",
    "Nobody in {place} could remember a {t} quite like this one",
    "The {a} in {place} said little about the {t} until {day}",
    "Behind the headlines, the {t} and the {f} told a similar story",
]

GENERIC_SENTENCES = [
    "The announcement came on {day} in {place}",
    "{name} declined to comment further",
    "More details are expected later this week",
    "Officials in {place} confirmed the schedule on {day}",
    "The report appeared on {day} morning",
    "{name} is expected to speak again next month",
    "Local newspapers in {place} carried the story on their front pages",
    "The statement came out shortly after noon",
    "{name} told reporters in {place} that more work was needed",
    "A full summary will be posted online on {day}",
    "The news spread quickly across {place}",
    "The subject has come up {num} times this year",
    "{name} and {name} met in {place} on {day}",
    "Further updates will follow as the story develops",
]

DISTRACTOR_TEMPLATES = [
    "Separately, there was brief mention of the {t} in {place}",
    "Elsewhere, a short note about the {t} appeared on {day}",
    "{name} also mentioned the {t} in passing",
]

FIRST_NAMES = [
    "Anna",
    "Marco",
    "Sofia",
    "James",
    "Lena",
    "Omar",
    "Clara",
    "David",
    "Yuki",
    "Pedro",
    "Maria",
    "Tom",
    "Ines",
    "Ravi",
    "Elena",
    "Samuel",
    "Nora",
    "Lucas",
    "Amira",
    "Felix",
]
LAST_NAMES = [
    "Keller",
    "Rossi",
    "Novak",
    "Okafor",
    "Larsen",
    "Moreau",
    "Tanaka",
    "Silva",
    "Brennan",
    "Haddad",
    "Fischer",
    "Costa",
    "Walsh",
    "Petrov",
    "Lindqvist",
    "Mendes",
    "Hughes",
    "Kowalski",
    "Duarte",
    "Sato",
]
PLACES = [
    "London",
    "Paris",
    "Madrid",
    "Berlin",
    "Rome",
    "Lisbon",
    "Oslo",
    "Vienna",
    "Dublin",
    "Prague",
    "Tokyo",
    "Sydney",
    "Toronto",
    "Chicago",
    "Nairobi",
    "Lyon",
    "Milan",
    "Geneva",
    "Boston",
    "Seoul",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

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
