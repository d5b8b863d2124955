# Prints what a tool can see of its start: argv, paths, modules, main
# globals, stdio set-up, signals, mask, umask, fds, rlimits, cwd, env.
import os
import resource
import signal
import sys

print("argv", sys.argv)
print("orig_argv", getattr(sys, "orig_argv", None))
print("path0", sys.path[0] if sys.path else None)
print("path", sys.path[1:])
print("executable", sys.executable, sys.prefix, sys.base_prefix)
print("flags", sys.flags)
print("warnoptions", sys.warnoptions, sys._xoptions)
print("file", globals().get("__file__"), __name__, __spec__, __package__)
print("loader", type(__loader__).__name__, getattr(__loader__, "path", None))
print("globals", list(globals()))
print("cached", globals().get("__cached__", "-"))
print("modules", sorted(sys.modules))
for f in (sys.stdin, sys.stdout, sys.stderr):
    print("stdio", f.name, f.mode, f.encoding, f.errors, f.line_buffering,
          f.write_through, type(f.buffer).__name__,
          getattr(f.buffer, "raw", f.buffer).name, f is getattr(sys, "__%s__" % f.name[1:-1]))
print("dunder", sys.__stdout__ is sys.stdout, sys.__stdin__ is sys.stdin)
print("signals", [str(signal.getsignal(s)) for s in range(1, 32) if s not in (9, 19)])
print("mask", sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
old = os.umask(0)
print("umask", oct(old))
print("fds", sorted(int(x) for x in os.listdir("/proc/self/fd")))
print("rlimits", [resource.getrlimit(r) for r in (resource.RLIMIT_NOFILE, resource.RLIMIT_STACK, resource.RLIMIT_CORE)])
print("cwd", os.getcwd())
print("env", sorted((k, v) for k, v in os.environ.items() if not k.startswith("SPAWNKIT_T")))
print("envb", os.environb.get(b"EQ_VAR"))
print("pgrp", os.getpgrp() == os.getpgid(os.getppid()), os.getsid(0) == os.getsid(os.getppid()))
print("ppid", os.getppid() == int(os.environ.get("EQ_CALLER", "0")))
print("comm", open("/proc/self/comm").read().strip())
print("pathcache", sorted(k for k, v in sys.path_importer_cache.items() if v is None))
print("meta", [type(m).__name__ for m in sys.meta_path])
