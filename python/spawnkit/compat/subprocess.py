"""subprocess's API with every child started through spawnkit, without
patching the subprocess module:

    from spawnkit.compat import subprocess
    subprocess.run(["git", "status"], capture_output=True)

Popen is a subclass of subprocess.Popen whose _execute_child is the routed
one (see spawnkit.compat); run, call, check_call, check_output, getoutput
and getstatusoutput are subprocess's own functions bound to this module, so
they use this Popen.  Everything else (PIPE, CompletedProcess,
CalledProcessError, TimeoutExpired, ...) is subprocess's own object.
"""
import subprocess as _stock
import types as _types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:       # what the loops below bind, as the type checker sees it
    from subprocess import DEVNULL as DEVNULL
    from subprocess import PIPE as PIPE
    from subprocess import STDOUT as STDOUT
    from subprocess import CalledProcessError as CalledProcessError
    from subprocess import CompletedProcess as CompletedProcess
    from subprocess import SubprocessError as SubprocessError
    from subprocess import TimeoutExpired as TimeoutExpired
    from subprocess import call as call
    from subprocess import check_call as check_call
    from subprocess import check_output as check_output
    from subprocess import getoutput as getoutput
    from subprocess import getstatusoutput as getstatusoutput
    from subprocess import run as run

from . import _route

for _name, _value in vars(_stock).items():
    if not (_name.startswith("__") and _name.endswith("__")):
        globals()[_name] = _value

__all__ = list(_stock.__all__)


class Popen(_stock.Popen):  # type: ignore[type-arg]
    __doc__ = _stock.Popen.__doc__
    _execute_child = _route.execute_child



def _rebind(fn: Any) -> Any:
    """fn's code with this module as its globals (so `Popen` is ours)."""
    new = _types.FunctionType(fn.__code__, globals(), fn.__name__,
                              fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__doc__ = fn.__doc__
    new.__qualname__ = fn.__qualname__
    return new


for _name in ("run", "call", "check_call", "check_output",
              "getstatusoutput", "getoutput"):
    globals()[_name] = _rebind(getattr(_stock, _name))

del _name, _value
