"""A small four-label task the task tests train on: word-level texts whose labels their words decide."""

LABELS = {
    "grain": "wheat corn and grain harvests",
    "interest": "interest rates and central banks",
    "oil": "crude oil prices and opec",
    "ship": "ships ports and shipping",
}
NEW_LABELS = {"gold": "gold and silver mining", "grain": "wheat corn and grain harvests", "jobs": "jobs and wages"}
_WORDS = {
    "grain": "wheat corn harvest grain tonnes",
    "interest": "rates bank interest central cut",
    "oil": "crude oil opec barrel prices",
    "ship": "ship port shipping vessel cargo",
}


def texts_and_targets(count=24, multi_label=True):
    texts, targets = [], []
    names = list(LABELS)
    for i in range(count):
        first = names[i % 4]
        second = names[(i // 4) % 4]
        if multi_label and i % 3 == 0 and second != first:
            texts.append(f"{_WORDS[first]} and {_WORDS[second]}. More news follows.")
            targets.append([first, second])
        else:
            texts.append(f"{_WORDS[first]} today. The market moved.")
            targets.append([first] if multi_label else first)
    return texts, targets
