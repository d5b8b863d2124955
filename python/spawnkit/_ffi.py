"""The compiled cffi module (spawnkit._spawnkit), with a clear error if absent."""
try:
    from ._spawnkit import ffi, lib  # type: ignore[import-not-found]
except ImportError as e:  # pragma: no cover - only on a broken install
    raise ImportError(
        "spawnkit's compiled binding (spawnkit._spawnkit) is missing; install "
        "the package with `pip install ./python` from a spawnkit checkout") from e

__all__ = ["ffi", "lib"]
