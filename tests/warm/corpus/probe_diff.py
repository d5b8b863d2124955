# The documented differences, printed so the runner can check each one.
import gc, sys, time
class Last:
    def __del__(self):
        print("finalised at exit")
keep = Last()
print("hash", hash("spawnkit-warm-probe"))
print("frame_back_none", sys._getframe().f_back is None)
print("freeze_count_zero", gc.get_freeze_count() == 0)
print("cpu_ms", int(time.process_time() * 1000))
with open("/proc/self/cmdline", "rb") as f:
    cmd = f.read().split(b"\0")
print("cmdline_has_c", b"-c" in cmd[1:3], cmd[-2:] == [b"probe_arg", b""])
with open("/proc/self/environ", "rb") as f:
    print("environ_has_var", b"EQ_VAR=v1" in f.read().split(b"\0"))
# the import cache (docs/warm.md): importlib's _find_and_load is its wrapper;
# json's classes exist before json is imported; an import it restores raises
# an "import" audit event for json only (the modules json pulls in are not
# imported again).  The hook is a builtin method: a function would keep
# __main__ (and `keep`) alive until the hooks are cleared, after finalisation.
print("find_and_load_wrapped", bool(sys.modules["_frozen_importlib"]._find_and_load.__code__.co_freevars))
print("json_classes_before_import",
      any(str(getattr(c, "__module__", "")).startswith("json") for c in object.__subclasses__()))
last = {}
sys.addaudithook(last.__setitem__)
import json
print("audit_last_import", last["import"][0])
last.clear()     # other events' arguments (frames) would keep __main__ alive
