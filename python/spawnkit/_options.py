"""The keyword options the synchronous and the asyncio layers share, each
list defined once: its names and types here (TypedDicts, which type the
callers' **options and give the names at run time), its defaults in one
function's signature (_spawn_raw() for spawn; run()'s, which is
_run_options()', for run).  Pure Python (no binding), so the portable
fallback uses the same lists."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, TypedDict, Union

if TYPE_CHECKING:
    from ._process import FileSpec
    from ._template import StrOrBytesPath, Template

__all__ = ["ChildOptions", "RunOptions", "SpawnOptions", "check_keywords"]


class ChildOptions(TypedDict, total=False):
    """The spawn options run(), aio.run() and aio.stream() take as spawn()
    does (a base of their keyword TypedDicts)."""
    cwd: Union[None, StrOrBytesPath, int]
    env: Optional[Mapping[Any, Any]]
    executable: Optional[StrOrBytesPath]
    pass_fds: Sequence[int]
    inherit_fds: bool
    signal_mask: Optional[Iterable[int]]
    default_signals: Iterable[int]
    restore_signals: bool
    warm: bool
    preload: Optional[Sequence[str]]


class SpawnOptions(ChildOptions, total=False):
    """spawn()'s and aio.spawn()'s options besides text, encoding and errors
    (and aio's limit): _spawn_raw()'s keywords, whose defaults are its."""
    stdin: FileSpec
    stdout: FileSpec
    stderr: FileSpec
    template: Optional[Template]
    new_session: bool


class RunOptions(ChildOptions, total=False):
    """The options run() and aio.run() both take, besides text, encoding,
    errors, universal_newlines, on_stdout and on_stderr (which run()'s
    overloads type by the text mode); their defaults are run()'s."""
    input: Union[None, bytes, str]
    timeout: Optional[float]
    no_output_timeout: Optional[float]
    wait_delay: Optional[float]
    capture_output: bool
    output_limit: Optional[int]
    stdin: Any
    stdout: Any
    stderr: Any
    check: bool
    kill_grace: float
    new_session: Optional[bool]


def check_keywords(fn: str, given: Mapping[str, object], options: Any) -> None:
    """The TypeError Python raises for a keyword `fn` does not take, for a
    function taking **options of the TypedDict `options`."""
    for name in given:
        if name not in options.__annotations__:
            raise TypeError(f"{fn}() got an unexpected keyword argument {name!r}")
