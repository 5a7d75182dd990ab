"""Parsers of the comma-separated options of the search scripts in tuning/ (`--units 8,16`, `--dropout 0.1,0.5`)."""


def ints(text):
    """`"8,16"` -> `[8, 16]`: the choices of an integer hyperparameter."""
    return [int(v) for v in text.split(",")]


def floats(text):
    """`"0.1,0.5"` -> `(0.1, 0.5)`, a range; one value, `"0.3"` -> `0.3`, a fixed value."""
    values = [float(v) for v in text.split(",")]
    return values[0] if len(values) == 1 else tuple(values)
