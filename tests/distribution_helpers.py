"""Runs a test file as a script in a fresh process on two devices and reads the JSON it prints.

The devices have to exist before the backend starts (JAX reads `XLA_FLAGS` when
it is imported; TensorFlow's logical devices are set before it initialises), and
this pytest process has already imported keras with the TensorFlow backend.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
TIMEOUT_S = 300


def two_device_environment(backend, config=None):
    """The environment of a process on two devices under `backend` (JAX: 2 host CPU devices)."""
    env = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="3")
    if backend == "jax":
        devices = "--xla_force_host_platform_device_count=2"
        env.update(JAX_PLATFORMS="cpu", XLA_FLAGS=f"{env.get('XLA_FLAGS', '')} {devices}".strip())
        # Nearly all the time is XLA compiling small programs; JAX's persistent cache (under .pytest_cache)
        # makes every run after the first faster.
        cache = getattr(config, "cache", None)  # None under `-p no:cacheprovider`
        if cache is not None and "JAX_COMPILATION_CACHE_DIR" not in env:
            env["JAX_COMPILATION_CACHE_DIR"] = str(cache.mkdir("jax_compilation_cache"))
            env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def result_after(marker, backend, returncode, stdout, stderr):
    """The JSON a script printed after `marker`; fails the test with the output's tails if it failed."""
    lines = [line for line in stdout.splitlines() if line.startswith(marker)]
    if returncode != 0 or not lines:
        pytest.fail(
            f"the {backend} subprocess failed (exit code {returncode}).\n"
            f"--- stdout tail ---\n{stdout[-2000:]}\n--- stderr tail ---\n{stderr[-6000:]}",
            pytrace=False,
        )
    return json.loads(lines[-1][len(marker) :])


def run_two_device_script(script, backend, marker, request=None, args=()):
    """Runs `script` under `backend` (JAX with 2 host CPU devices) and returns the JSON after `marker`."""
    env = two_device_environment(backend, request.config if request is not None else None)
    try:
        result = subprocess.run(
            [sys.executable, str(script), *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{pathlib.Path(script).name} ({backend}) ran past {TIMEOUT_S} s", pytrace=False)
    return result_after(marker, backend, result.returncode, result.stdout, result.stderr)
