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
