"""The package is built in floors, and no import runs back up them.

Floor 0 holds helpers every part may use; layers, losses, metrics, the text pipeline and the dataset loaders
build on it; the builders (`models/`) on those; training, evaluation, export and distribution on the
builders, beside the task (`tasks/`: a `LabelClassifier` is what they take; `from_model` makes one of a model
you built); the hypermodels on everything. The scripts stand outside: the search scripts (`tuning/`) use the
benchmarks' shared pieces, never the reverse, and the package imports neither.
"""

import ast
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = REPO / "keras_labelemb"
FLOORS = [
    {"argument_checks", "display_text", "document_frequency"},
    {"layers", "losses", "metrics", "text", "datasets", "plotting"},
    {"models"},
    {"training", "evaluation", "export", "distribution", "tasks"},
    {"tuning", "testing"},
]
FLOOR = {part: level for level, parts in enumerate(FLOORS) for part in parts}


def imported_modules(path, root=REPO):
    """Every module `path` imports, at the top or inside a function, as absolute dotted names: relative imports
    resolved against the file's package, `from keras_labelemb import training` read as `keras_labelemb.training`."""
    package = list(path.relative_to(root).parent.parts)
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            if module in ("keras_labelemb", *(".".join(package[:i]) for i in range(2, len(package) + 1))):
                names.update(f"{module}.{alias.name}" for alias in node.names)  # may name submodules
            else:
                names.add(module)
    return names


def package_part(path):
    """`layers` for keras_labelemb/layers/gile_head.py, `argument_checks` for keras_labelemb/argument_checks.py."""
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def test_every_part_of_the_package_has_a_floor():
    parts = {package_part(p) for p in PACKAGE.rglob("*.py")} - {"__init__"}
    assert parts == set(FLOOR), f"give these a floor: {sorted(parts ^ set(FLOOR))}"


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_import_runs_up_the_floors(path):
    part = package_part(path)
    if part == "__init__":
        return  # the package's own __init__ exports from every floor
    for name in imported_modules(path):
        top, _, rest = name.partition(".")
        assert top not in ("benchmarks", "tuning", "examples", "tests"), f"the package imports a script: {name}"
        if top == "keras_labelemb":
            assert rest, "import the part of the package you use, not the package itself"
            other = rest.split(".")[0]
            assert FLOOR[other] <= FLOOR[part], f"{part} (floor {FLOOR[part]}) imports {name} (floor {FLOOR[other]})"


def test_the_benchmarks_import_nothing_from_the_search_scripts():
    for path in (REPO / "benchmarks").rglob("*.py"):
        tops = {name.split(".")[0] for name in imported_modules(path)}
        assert not tops & {"tuning", "examples", "tests"}, f"{path.name} imports {sorted(tops & {'tuning'})}"


def test_the_floor_check_reads_every_form_of_import(tmp_path):
    source = tmp_path / "keras_labelemb" / "layers" / "probe.py"
    source.parent.mkdir(parents=True)
    source.write_text(
        "def f():\n    from keras_labelemb.training import x\n"
        "from keras_labelemb import evaluation\nfrom ..export import y\nfrom . import gile_head\n"
    )
    assert imported_modules(source, root=tmp_path) == {
        "keras_labelemb.training",
        "keras_labelemb.evaluation",
        "keras_labelemb.export",
        "keras_labelemb.layers.gile_head",
    }
