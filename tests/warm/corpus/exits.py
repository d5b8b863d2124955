import os, sys
how = sys.argv[1]
print("before", how, flush=(how == "oexit"))
if how == "int":
    sys.exit(3)
if how == "str":
    sys.exit("bye message")
if how == "none":
    sys.exit(None)
if how == "big":
    raise SystemExit(300)
if how == "neg":
    sys.exit(-1)
if how == "true":
    sys.exit(True)
if how == "oexit":
    os._exit(7)
if how == "raise":
    def f():
        raise ValueError("bad value \u00e9")
    try:
        f()
    except ValueError as e:
        raise KeyError("k") from e
if how == "kbint":
    raise KeyboardInterrupt
if how == "sigterm":
    sys.stdout.flush()
    os.kill(os.getpid(), 15)
if how == "abort":
    sys.stdout.flush()
    os.abort()
if how == "atexit":
    import atexit
    atexit.register(print, "atexit ran")
    class Boom:
        def __repr__(self):
            return "<boom>"
        def __call__(self):
            1 / 0
    atexit.register(Boom())
if how == "closed_stdout":
    os.close(1)
if how == "excepthook":
    sys.excepthook = lambda t, v, tb: print("hooked", t.__name__, file=sys.stderr)
    raise RuntimeError("x")
print("end", how)
