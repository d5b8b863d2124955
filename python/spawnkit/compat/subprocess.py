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

from . import _route

for _name, _value in vars(_stock).items():
    if not (_name.startswith("__") and _name.endswith("__")):
        globals()[_name] = _value

__all__ = list(_stock.__all__)


class Popen(_stock.Popen):
    __doc__ = _stock.Popen.__doc__
    _execute_child = _route.execute_child



def _rebind(fn):  # type: ignore[no-untyped-def]
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
