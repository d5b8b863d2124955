import sys
if sys.argv[4:5] != [""]:                   # preload (opt-in, visible): part of the
    for _m in sys.argv[4].split(","):      # cold start's modules from now on
        __import__(_m)
    del _m
_BASE = frozenset(sys.modules)
_BASE_PIC = frozenset(sys.path_importer_cache)
# spawnkit warm interpreter (src/warm/bootstrap.py).  libspawnkit starts it
# as `PYTHON [flags] -c <importcache.py + this file> <caller pid> <main thread>
# <idle s> <preload> <import cache 1|0> [<test step to die at>]`
# with fd 3 a SOCK_SEQPACKET socket to the caller.  It uses only the standard
# library: spawnkit need not be installed in the interpreter it warms.  Each
# request becomes one tool process, created with clone(CLONE_PARENT) so the
# tool is the caller's own child; its pidfd goes back over the socket.  The
# first lines run before any import of ours: _BASE is what a cold start holds
# (plus the preloaded modules, when asked for).
# Wire format: src/warm/proto.h (every integer little-endian).


def _boot():
    # Our own imports register no ABCs: a registration moves the global
    # abc.get_cache_token() for good (under -S, os brings its own
    # _collections_abc, whose registrations a cold start without os lacks).
    abcmeta = sys.modules["abc"].ABCMeta
    register = abcmeta.__dict__["register"]
    abcmeta.register = lambda cls, subclass: subclass
    try:
        import posix
        import _signal
        import _socket
        import io
        import gc
        import atexit
        import ctypes
        import fcntl
        import os
        import _thread  # noqa: F401 - the import cache checks its thread count
    finally:
        abcmeta.register = register

    G = globals()
    MAIN_INIT = [(k, G[k]) for k in ("__name__", "__doc__", "__package__", "__loader__",
                                     "__spec__", "__annotations__", "__builtins__") if k in G]
    caller, main_thread, idle = int(sys.argv[1]), sys.argv[2] == "1", float(sys.argv[3])
    use_ic = sys.argv[5] == "1"
    die = sys.argv[6] if len(sys.argv) > 6 else ""
    if sys.path[:1] == [""]:
        del sys.path[0]                     # our cwd is "/"; put back per call
    path0_added = not getattr(sys.flags, "safe_path", sys.flags.isolated)
    sock = _socket.socket(fileno=3)
    fsenc, fserr = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()

    def u32(b, o):
        return int.from_bytes(b[o:o + 4], "little"), o + 4

    def send_hello(ok, text, watch):
        body = b"\0".join([b"ok" if ok else b"no", text.encode()] +
                          [os.fsencode(p) for p in watch])
        sock.sendmsg([b"SKWH" + body])

    # ---- what this interpreter needs to make children ----
    try:
        if sys.version_info < (3, 8):
            raise RuntimeError("python < 3.8")
        if posix.uname().machine != "x86_64":
            raise RuntimeError("clone argument order known for x86_64 only")
        libc = ctypes.CDLL(None, use_errno=True)
        papi = ctypes.pythonapi
        raw = ctypes.PyDLL(None)             # keeps the GIL across the call
        tid_off = (ctypes.c_uint32 * 3).in_dll(libc, "_thread_db_pthread_tid")[2]
        libc.pthread_self.restype = ctypes.c_void_p
        self_pt = libc.pthread_self()
        gettid = 186
        if ctypes.c_int.from_address(self_pt + tid_off).value != libc.syscall(gettid):
            raise RuntimeError("libc thread id not where expected")
        rsys = raw.syscall
        rsys.restype = ctypes.c_long
        L = ctypes.c_long
        pidfd_box = ctypes.c_int(-1)
        tid_addr = self_pt + tid_off
        libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong,
                               ctypes.c_ulong, ctypes.c_ulong]
        libc.setrlimit.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.getrlimit.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.fflush.argtypes = [ctypes.c_void_p]
        libc.clearenv.argtypes = []
    except Exception as e:  # noqa: BLE001 - any reason means "cannot warm"
        send_hello(False, "%s: %s" % (type(e).__name__, e), [])
        return
    if main_thread:
        libc.prctl(1, 9, 0, 0, 0)           # PR_SET_PDEATHSIG, SIGKILL
        if posix.getppid() != caller:
            return
    for s in (1, 2, 3, 20, 21, 22):         # a terminal's signals reach the caller
        _signal.signal(s, _signal.SIG_IGN)

    # The environment CPython itself changed at start-up (PEP 538 locale
    # coercion): the start-up environ (/proc) against posix.environ.
    with open("/proc/self/environ", "rb") as f:
        start_env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
    env_changes = [(k, v) for k, v in posix.environ.items() if start_env.get(k) != v]

    # What invalidates us: the executable, libpython, sys.path, .pth, *customize.
    watch = [sys.executable]
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split(None, 5)[-1].strip()
                if "/libpython" in p and p not in watch:
                    watch.append(p)
    except OSError:
        pass
    site_dirs = list(sys.path)
    site = sys.modules.get("site")
    if site is not None:
        try:
            site_dirs += list(site.getsitepackages()) + [site.getusersitepackages()]
        except Exception:  # noqa: BLE001
            pass
    for d in site_dirs:
        if d and d not in watch:
            watch.append(d)
            try:
                watch.extend(os.path.join(d, n) for n in sorted(os.listdir(d)) if n.endswith(".pth"))
            except OSError:
                pass
    for m in ("sitecustomize", "usercustomize"):
        f = getattr(sys.modules.get(m), "__file__", None)
        if f:
            watch.append(f)

    # the import cache: recorded now, used only by the tools (importcache.py);
    # its modules' files are watched too
    ic_cache, ic_snap = {}, None
    if use_ic and "abc" in _BASE:
        try:
            ic_cache, _skipped, ic_snap = _ic_build(_BASE)
        except Exception as e:  # noqa: BLE001 - what is loaded may not be the cold state
            send_hello(False, "import cache: %s: %s" % (type(e).__name__, e), [])
            return
    for entry in [e for es in ic_cache.values() for e in es]:
        for _n, m in entry[0]:
            f = getattr(m, "__file__", None)
            if f and f not in watch:
                watch.append(f)
    for f in (sys.stdout, sys.stderr):     # start-up output still in a buffer
        try:                                # is start-up output too (interp.c)
            f.flush()
        except Exception:  # noqa: BLE001
            pass
    send_hello(True, sys.version.split()[0], watch)
    dn = posix.open("/dev/null", posix.O_RDWR)
    posix.dup2(dn, 1)
    posix.dup2(dn, 2)
    posix.close(dn)
    old_stdio = (sys.stdin, sys.stdout, sys.stderr)
    # builtin compile() (ours, per call) creates the interpreter's AST types
    # on first use (~0.6 ms); a cold start's own compile of the script does
    # not: make them here, once, so a warm call does not pay for them either
    compile("pass", "<warm>", "exec", dont_inherit=True)
    gc.collect()
    gc.freeze()
    sock.settimeout(idle if idle > 0 else None)

    def rlimit_set(res, cur, mx):
        buf = (ctypes.c_uint64 * 2)()
        libc.getrlimit(res, buf)
        if buf[0] != cur or buf[1] != mx:
            buf[0], buf[1] = cur, mx
            if libc.setrlimit(res, buf) != 0:
                return False
        return True

    def parse(msg):
        """Request: see proto.h."""
        o = 4
        nfd, o = u32(msg, o)
        targets = []
        for _ in range(nfd):
            t, o = u32(msg, o)
            targets.append(t - (1 << 32) if t >= 1 << 31 else t)
        umask, o = u32(msg, o)
        mask = int.from_bytes(msg[o:o + 8], "little")
        ign = int.from_bytes(msg[o + 8:o + 16], "little")
        o += 16
        nrl, o = u32(msg, o)
        rl = []
        for i in range(nrl):
            rl.append((int.from_bytes(msg[o:o + 8], "little"),
                       int.from_bytes(msg[o + 8:o + 16], "little")))
            o += 16
        mode, o = u32(msg, o)
        rest, o = u32(msg, o)
        nargv, o = u32(msg, o)
        nenv, o = u32(msg, o)
        strs = msg[o:].split(b"\0")
        return (targets, umask, mask, ign, rl, mode, rest,
                strs[:nargv], strs[nargv:nargv + nenv], strs[nargv + nenv],
                strs[nargv + nenv + 1])

    def test_die(step, pfd):
        """SPAWNKIT_WARM_TEST_DIE (tests/warm/robust.py): misbehave after the clone."""
        if step == "clone":
            posix.kill(posix.getpid(), 9)
        elif step == "garbage":
            sock.sendmsg([b"SKWX" + bytes(8)],
                         [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, pfd.to_bytes(4, "little"))])
        elif step == "stall":
            while True:
                _signal.pause()

    def serve():
        while True:
            try:
                msg, anc, _fl, _ad = sock.recvmsg(1 << 20, _socket.CMSG_SPACE(4 * 300))
            except TimeoutError:
                return                      # idle: shut down
            except OSError as e:
                if type(e).__name__ == "timeout":
                    return
                raise
            if not msg or msg[:4] != b"SKWR":
                return                      # the caller closed, or garbage
            fds = []
            for lvl, typ, data in anc:
                if lvl == _socket.SOL_SOCKET and typ == _socket.SCM_RIGHTS:
                    fds += [int.from_bytes(data[i:i + 4], "little")
                            for i in range(0, len(data) - len(data) % 4, 4)]
            req = parse(msg)
            targets = req[0]
            if len(fds) != len(targets) or -2 not in targets:
                return                      # not our caller's request
            go = fds[targets.index(-2)]
            if die == "request":
                posix.kill(posix.getpid(), 9)
            pidfd_box.value = -1
            papi.PyOS_BeforeFork()
            # clone(CLONE_PARENT | CLONE_PIDFD | CLONE_CHILD_SETTID | SIGCHLD):
            # the child's thread id lands in libc's thread descriptor, as fork().
            pid = rsys(L(56), L(0x8000 | 0x1000 | 0x01000000 | 17), L(0),
                       L(ctypes.addressof(pidfd_box)), L(tid_addr), L(0))
            if pid == 0:
                # The tool names itself to the caller on the call's go
                # channel, then runs nothing of the call until the caller
                # has our reply and says go: if we die first, the caller
                # kills and reaps it, so a call never runs twice (warm, then
                # cold) and is never left unreaped (request.c).
                papi.PyOS_AfterFork_Child()
                try:                        # EPIPE: the caller said go and closed
                    posix.write(go, posix.getpid().to_bytes(4, "little"))
                except OSError:
                    pass
                ok = False
                for _ in range(2):          # a reset first (the caller closed
                    try:                    # with our pid unread), then its "g"
                        ok = posix.read(go, 1) == b"g"
                        break
                    except OSError:
                        pass
                if not ok:
                    posix._exit(127)
                posix.close(go)
                child(req, fds)             # never returns
            papi.PyOS_AfterFork_Parent()
            for fd in fds:
                posix.close(fd)
            if pid < 0:
                sock.sendmsg([b"SKWA" + (ctypes.get_errno() or 1).to_bytes(4, "little") +
                              (0).to_bytes(4, "little")])
                continue
            pfd = pidfd_box.value
            if die:
                test_die(die, pfd)
            try:
                sock.sendmsg([b"SKWA" + (0).to_bytes(4, "little") + pid.to_bytes(4, "little")],
                             [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, pfd.to_bytes(4, "little"))])
            finally:
                posix.close(pfd)
            if die == "reply":
                posix.kill(posix.getpid(), 9)

    # ---- the child: become what a cold start of the call would be ----

    def child(req, fds):
        status = 1
        try:
            status = prepare_and_run(req, fds)
        except BaseException:  # noqa: BLE001 - our own failure: say so, as a start failure
            try:
                posix.write(2, b"spawnkit warm: internal error in the tool process\n")
            except OSError:
                pass
            status = 125
        posix._exit(status)

    def prepare_and_run(req, fds):
        targets, umask, mask, ign, rl, mode, rest, argv, env, comm, payload = req
        sock.detach()                       # its fd is closed below, by number
        name = ctypes.create_string_buffer(comm[:15])
        libc.prctl(15, ctypes.addressof(name), 0, 0, 0)    # PR_SET_NAME
        # fds: the cwd first, then the call's fds at their numbers, nothing else
        keep = []
        for fd, t in zip(fds, targets):
            if t == -1:
                posix.fchdir(fd)
        top = max([t for t in targets] + [2]) + 1
        moved = []
        for fd, t in zip(fds, targets):
            if t >= 0:
                hi = fcntl_dupfd(fd, top + len(fds) + 1)
                moved.append((hi, t))
        for hi, t in moved:
            posix.dup2(hi, t, True)
            keep.append(t)
        keep = sorted(set(keep))
        lo = 0
        for k in keep:
            if k > lo:
                posix.closerange(lo, k)
            lo = k + 1
        if rsys(L(436), L(lo), L(0xFFFFFFFF), L(0)) != 0:       # close_range
            posix.closerange(lo, posix.sysconf("SC_OPEN_MAX"))
        posix.umask(umask)
        for res, (cur, mx) in enumerate(rl):
            if not rlimit_set(res, cur, mx):
                return 125
        # signals: the cold child's dispositions, then CPython's own set-up
        for s in range(1, 65):
            if s in (9, 19, 32, 33):
                continue
            want = _signal.SIG_IGN if ign >> (s - 1) & 1 else _signal.SIG_DFL
            if s in (13, 25):               # SIGPIPE, SIGXFSZ: CPython ignores them
                want = _signal.SIG_IGN
            elif s == 2 and want == _signal.SIG_DFL:
                want = _signal.default_int_handler
            try:
                if _signal.getsignal(s) is not want:
                    _signal.signal(s, want)
            except (OSError, ValueError):
                pass
        _signal.pthread_sigmask(_signal.SIG_SETMASK,
                                [s for s in range(1, 65) if mask >> (s - 1) & 1])
        # environ, at the C level and in posix.environ (which os.environ is)
        libc.clearenv()
        order = []
        final = {}
        for e in env:
            k, _, v = e.partition(b"=")
            if k not in final:
                order.append(k)
            final[k] = v
        for k, v in env_changes:
            if k not in final:
                order.append(k)
            final[k] = v
        for k in order:
            posix.putenv(k, final[k])
        penv = posix.environ
        penv.clear()
        for k in order:
            penv[k] = final[k]
        # modules: exactly the cold start's set
        for name in [n for n in sys.modules if n not in _BASE]:
            mod = sys.modules.pop(name)
            parent, _, leaf = name.rpartition(".")
            if parent and parent in _BASE and getattr(sys.modules.get(parent), leaf, None) is mod:
                try:
                    delattr(sys.modules[parent], leaf)
                except AttributeError:
                    pass
        # the importer cache: the cold start's entries (not the bootstrap's
        # imports'), in its order; PathFinder.invalidate_caches() drops the
        # None ones (a missing python3X.zip), which a cold start has
        pic = sys.path_importer_cache
        pic_base = [(p, f) for p, f in pic.items() if p in _BASE_PIC]
        for finder in sys.meta_path:
            inv = getattr(finder, "invalidate_caches", None)
            if inv is not None:
                inv()
        pic.clear()
        pic.update(pic_base)
        if "random" in sys.modules:
            sys.modules["random"].seed()
        # gc stays frozen: unfreezing makes the next full collection walk (and
        # so copy) every page of the inherited heap (docs/warm.md)
        # argv, sys.path[0], __main__
        dec = [a.decode(fsenc, fserr) for a in argv]
        payload = payload.decode(fsenc, fserr)
        tail = dec[rest:]
        if hasattr(sys, "orig_argv"):
            sys.orig_argv = dec
        main = type(sys)("__main__")
        d = main.__dict__
        for k, v in MAIN_INIT:
            d[k] = v
        d["__annotations__"] = {}
        sys.modules["__main__"] = main
        code = None
        if mode == 0:
            sys.argv = [payload] + tail
            fname = payload
            if sys.version_info >= (3, 9) and not payload.startswith("/"):
                fname = os.getcwd() + "/" + payload
            if path0_added:
                sys.path.insert(0, os.path.dirname(os.path.realpath(payload)))
            with open(payload, "rb") as f:
                src = f.read()
            ldr = sys.modules["_frozen_importlib_external"].SourceFileLoader
            d["__loader__"] = ldr("__main__", fname)
            d["__file__"] = fname
            d["__cached__"] = None
            # a cold start asks the path hooks for an importer of the script
            # (PyImport_GetImporter: it may be a zip or a directory), caching None
            sys.path_importer_cache[fname] = None
        elif mode == 1:
            sys.argv = ["-c"] + tail
            if path0_added:
                sys.path.insert(0, "")
        else:
            sys.argv = ["-m"] + tail
            if path0_added:
                sys.path.insert(0, os.getcwd())
        rebuild_stdio()
        if ic_cache:
            bs = sys.modules["_frozen_importlib"]
            bs._find_and_load = _ic_hook(ic_cache, ic_snap, bs._find_and_load,
                                         sys.modules["_frozen_importlib_external"].PathFinder)
        status = 0
        try:
            if mode == 0:
                code = compile(src, fname, "exec", dont_inherit=True)
                exec(code, d)
            elif mode == 1:
                code = compile(payload, "<string>", "exec", dont_inherit=True)
                exec(code, d)
            else:
                import runpy
                runpy._run_module_as_main(payload, True)
        except SystemExit as e:
            status = exit_code(e)
        except BaseException as e:  # noqa: BLE001 - reported as a cold start does
            status = report(e)
            if isinstance(e, KeyboardInterrupt):
                finish(status)
                _signal.signal(2, _signal.SIG_DFL)
                posix.kill(posix.getpid(), 2)
                return 130
        return finish(status)

    def fcntl_dupfd(fd, low):
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, low)

    def rebuild_stdio():
        unbuffered = bool(old_stdio[1] is not None and old_stdio[1].write_through)
        for fd, name, old in ((0, "stdin", old_stdio[0]), (1, "stdout", old_stdio[1]),
                              (2, "stderr", old_stdio[2])):
            if old is None:
                continue
            write = fd != 0
            buffering = 0 if (unbuffered and write) else -1
            buf = io.open(fd, "wb" if write else "rb", buffering, None, None, None, False)
            raw_f = buf.raw if buffering else buf
            raw_f.name = "<%s>" % name
            tty = raw_f.isatty()
            line = (not (unbuffered and write)) and (tty or (fd == 2 and sys.version_info >= (3, 9)))
            t = io.TextIOWrapper(buf, old.encoding, old.errors, "\n", line, unbuffered)
            t.mode = "w" if write else "r"
            setattr(sys, name, t)
            setattr(sys, "__%s__" % name, t)

    def strip(tb):
        while tb is not None and tb.tb_frame.f_globals is G:
            tb = tb.tb_next
        return tb

    def report(e):
        tb = strip(e.__traceback__)
        e.__traceback__ = tb
        sys.last_type, sys.last_value, sys.last_traceback = type(e), e, tb
        if sys.version_info >= (3, 12):
            sys.last_exc = e
        try:
            sys.excepthook(type(e), e, tb)
        except SystemExit as se:
            return exit_code(se)
        except BaseException:  # noqa: BLE001
            pass
        return 1

    def exit_code(e):
        c = e.code
        if c is None:
            return 0
        if isinstance(c, int):
            return c & 0xFF
        err = sys.stderr
        try:
            if err is None or getattr(err, "closed", False):
                posix.write(2, (str(c) + "\n").encode(fsenc, "backslashreplace"))
            else:
                err.write(str(c))
                err.write("\n")
        except BaseException:  # noqa: BLE001
            pass
        return 1

    def finish(status):
        """Py_FinalizeEx's part a tool can see, then a fast exit."""
        th = sys.modules.get("threading")
        if th is not None:
            try:
                th._shutdown()
            except BaseException:  # noqa: BLE001
                pass
        atexit._run_exitfuncs()
        for name in ("stdout", "stderr"):
            f = getattr(sys, name, None)
            if f is None or getattr(f, "closed", True):
                continue
            try:
                f.flush()
            except BaseException as e:  # noqa: BLE001
                status = 120
                try:
                    se = sys.stderr
                    se.write("Exception ignored in: %r\n%s: %s\n" % (f, type(e).__name__, e))
                    se.flush()
                except BaseException:  # noqa: BLE001
                    pass
        libc.fflush(None)
        return status

    serve()


_boot()
