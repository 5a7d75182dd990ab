"""Names that changed before the first release: an old one raises an error naming the new one.

The README's changelog lists the same changes. Keyed by where the old name was used.
"""

# Old public import path -> the new one.
MOVED = {
    "keras_labelemb.evaluation.BestValidationF1": "keras_labelemb.training.BestValidationF1",
    "keras_labelemb.text.pretrain_word_vectors": "keras_labelemb.training.pretrain_word_vectors",
    "keras_labelemb.models.stateless_language_model": "keras_labelemb.export.stateless_language_model",
}
# (function or class, old argument) -> what to pass instead.
RENAMED_ARGUMENTS = {
    ("TextVectorizer", "output_mode"): "flat=True (was output_mode='flat') or flat=False ('hierarchical')",
    ("TextVectorizer.encode_labels", "max_length"): "description_length",
}


def moved_attribute(module, name):
    """A module's `__getattr__`: an `ImportError` naming the new place of a moved name, else AttributeError."""
    new = MOVED.get(f"{module}.{name}")
    if new is not None:
        raise ImportError(f"{module}.{name} moved to {new}; import it from there.")
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def check_renamed_arguments(where, arguments):
    """Raises a `ValueError` naming the new argument for any renamed one among `arguments` (a dict)."""
    for argument, value in arguments.items():
        new = RENAMED_ARGUMENTS.get((where, argument))
        if new is not None:
            raise ValueError(f"`{argument}` of {where} was renamed: pass {new}. Received: {argument}={value!r}")


def refuse_arguments(where, arguments):
    """For a function taking `**arguments` only to name renamed ones: a renamed one raises `ValueError` (as
    `check_renamed_arguments`), any other the `TypeError` Python would give."""
    check_renamed_arguments(where, arguments)
    if arguments:
        raise TypeError(f"{where}() got unexpected arguments {sorted(arguments)}")
