# spawnkit warm interpreter: the import cache (src/warm/importcache.py).
# Assembled in front of bootstrap.py (blob.S); it only defines functions, so
# it imports nothing before bootstrap.py's first lines have taken _BASE.
#
# The warm interpreter imports each name of _IC_NAMES once, from exactly the
# cold start's sys.modules, records what that import added (its closure of
# modules in insertion order, sys.path_importer_cache entries, attributes
# on parent packages, keys added to dicts of modules already loaded -- re's
# pattern cache when re is there already -- and ABC registrations) and takes
# all of it out again: a tool starts with the cold sys.modules.  When the tool
# imports one of those names, importlib._bootstrap._find_and_load (which
# CPython's import statement looks up on every import of a module not yet in
# sys.modules) puts the recorded closure back in the cold order instead of
# running the module bodies, if nothing could make the cold import differ;
# otherwise the normal import runs.  docs/warm.md, "The import cache".

# Pure standard library modules whose import reads nothing but their own
# code: no environment, cwd, argv, time, other files, no threads, no warnings.
# (typing pulls in warnings, which applies -W options; threading records the
# importing thread: neither is here.)
_IC_NAMES = ("json", "re", "enum", "functools", "collections")
# Also recorded on top of another name's recorded closure: json after re
# (the tool imported re first, or argparse, pathlib, logging... did).
_IC_CHAINS = (("re", "json"),)
# Names the guard (below) refused while recording: a refused module makes
# the record fail even when the importing module catches the ImportError
# (json.scanner falls back without _json: a tool would import a _json.py).
_IC_REFUSED = []


def _ic_fingerprint(mods, names):
    """What of the loaded modules an import may change: each global's
    identity, and the contents of dict, list and set globals."""
    fp = {}
    for n in names:
        d = getattr(mods.get(n), "__dict__", None)
        if d is None or n in ("sys", "__main__"):  # sys: compared apart; __main__:
            continue                                # ours, a tool gets a new one
        for k, v in list(d.items()):
            t = type(v)
            if t is dict:
                fp[n, k] = (id(v), tuple(v), tuple(map(id, v.values())))
            elif t is list:
                fp[n, k] = (id(v), tuple(map(id, v)))
            elif t is set:
                fp[n, k] = (id(v), frozenset(map(id, v)))
            else:
                fp[n, k] = id(v)
    return fp


def _ic_sys_state(mods):
    s = mods["sys"]
    return (list(s.path), list(s.meta_path), list(s.path_hooks))


def _ic_record(name, base, base_pic, watch, requires=(), fp0=None):
    """Import name from the base state (plus, for a chain, the closure
    `requires` already put in); return its entry, or the reason it cannot be
    cached.  Leaves sys.modules and the importer cache as found; raises
    RuntimeError if the import changed what cannot be put back (the warm
    interpreter then cannot give a cold start's state).  fp0: the
    fingerprint of the state it starts from, if known."""
    mods = sys.modules
    pic = sys.path_importer_cache
    abc_mod = mods["abc"]
    ABCMeta = abc_mod.ABCMeta
    atexit_mod, thread_mod = watch
    if fp0 is None:
        fp0 = _ic_fingerprint(mods, base)
    sys0 = _ic_sys_state(mods)
    tok0, nat0, nth0 = abc_mod.get_cache_token(), atexit_mod._ncallbacks(), thread_mod._count()
    regs = []
    real_register = ABCMeta.__dict__["register"]

    def register(cls, subclass):            # replayed in the tool, as cold
        regs.append((cls, subclass))
        return subclass
    ABCMeta.register = register
    why = None
    n_refused = len(_IC_REFUSED)
    try:
        __import__(name)
    except BaseException as e:  # noqa: BLE001 - not cacheable, the tool imports it normally
        why = "import failed: %s" % type(e).__name__
    finally:
        ABCMeta.register = real_register
    if why is None and len(_IC_REFUSED) != n_refused:
        why = "not the standard library's: %s" % (_IC_REFUSED[n_refused:],)
    new = [(n, m) for n, m in mods.items() if n not in base]
    newpic = [(p, f) for p, f in pic.items() if p not in base_pic]
    parents, adds, sizes = [], [], []
    if (abc_mod.get_cache_token() != tok0 or atexit_mod._ncallbacks() != nat0
            or thread_mod._count() != nth0 or _ic_sys_state(mods) != sys0):
        raise RuntimeError("importing %s changed abc, atexit, threads or sys" % name)
    # what the import changed of the modules loaded before it: attributes
    # for its submodules and keys added to dicts can be taken out (and put
    # back in the tool); anything else cannot, even for a failed import
    newmods = dict(new)
    fp1 = _ic_fingerprint(mods, base)
    for key in set(fp0) | set(fp1):
        a, b = fp0.get(key), fp1.get(key)
        if a == b:
            continue
        mname, attr = key
        holder = mods[mname]
        sub = newmods.get(mname + "." + attr)
        if a is None and sub is not None and getattr(holder, attr) is sub:
            parents.append((holder, attr, sub))
            continue
        d = getattr(holder, attr, None)
        if (type(a) is tuple and type(b) is tuple and type(d) is dict and a[0] == b[0]
                and b[1][:len(a[1])] == a[1] and b[2][:len(a[2])] == a[2]
                and mname != "warnings" and not attr.endswith("registry__")):
            added = b[1][len(a[1]):]
            adds += [(d, k, d[k]) for k in added]
            sizes.append((d, len(a[1]), _ic_room(holder, attr, len(added))))
            continue
        raise RuntimeError("importing %s changed %s.%s" % (name, mname, attr))
    # back to the base state
    _ic_put((new, None, parents, adds), False)
    for p, _f in newpic:
        del pic[p]
    if why is not None:
        return why
    tops = set()
    for n, m in new:
        spec = getattr(m, "__spec__", None)
        if getattr(spec, "origin", None) not in ("built-in", "frozen"):
            tops.add(n.partition(".")[0])  # found on sys.path: can be shadowed
    return (new, newpic, parents, adds, sizes, regs, sorted(tops), list(requires))


def _ic_room(holder, attr, k):
    """How large the dict may have grown when k keys are added to it as the
    cold import would: re's pattern cache only drops entries past _MAXCACHE;
    any other dict must be as recorded (-1)."""
    if getattr(holder, "__name__", None) == "re" and attr == "_cache":
        return getattr(holder, "_MAXCACHE", 0) - k
    return -1


def _ic_put(entry, on):
    """Put an entry's modules (and their attributes on loaded packages,
    keys added to loaded dicts) into sys.modules, or take them out."""
    mods = sys.modules
    for n, m in entry[0]:
        if on:
            mods[n] = m
        else:
            del mods[n]
    for holder, attr, v in entry[2]:
        if on:
            setattr(holder, attr, v)
        else:
            delattr(holder, attr)
    for d, key, v in entry[3]:
        if on:
            d[key] = v
        else:
            del d[key]


def _ic_build(base):
    """The cache: {name: entry}, recorded from exactly the base sys.modules
    (the bootstrap's own modules are set aside meanwhile, so no closure
    shares an object with them or with another closure)."""
    mods = sys.modules
    pic = sys.path_importer_cache
    watch = (mods["atexit"], mods["_thread"])
    kept = [(n, m) for n, m in mods.items() if n not in base]
    kept_pic = [(p, f) for p, f in pic.items() if p not in _BASE_PIC]
    for n, _m in kept:
        del mods[n]
    for p, _f in kept_pic:
        del pic[p]
    cache, skipped = {}, {}
    guard = _ic_guard(mods)
    sys.meta_path.insert(0, guard)
    try:
        fp_base = _ic_fingerprint(mods, base)   # each record leaves it as found
        for name in _IC_NAMES:
            if name in base:
                continue
            e = _ic_record(name, base, _BASE_PIC, watch, fp0=fp_base)
            if type(e) is str:
                skipped[name] = e
            else:
                cache[name] = [e]
        for first, name in _IC_CHAINS:
            if first in cache and name in cache:
                under = cache[first][0]
                _ic_put(under, True)
                try:
                    e = _ic_record(name, base | {n for n, _m in under[0]}, _BASE_PIC, watch,
                                   under[0])
                finally:
                    _ic_put(under, False)
                if type(e) is str:
                    skipped[first + "+" + name] = e
                else:
                    cache[name].append(e)
    finally:
        sys.meta_path.remove(guard)
        for n, m in kept:
            mods[n] = m
        for p, f in kept_pic:
            pic[p] = f
    return cache, skipped, _ic_sys_state(mods)


def _ic_guard(mods):
    """A finder in front of the others while the cache is recorded: only
    the standard library's own files are imported (a module of the same name
    earlier on PYTHONPATH or sys.path is not run here; that import fails,
    and the tool imports the name normally)."""
    stdlib = mods["encodings"].__file__.rsplit("/", 2)[0] + "/"     # .../encodings/__init__.py

    class Guard:
        @staticmethod
        def find_spec(name, path=None, target=None):
            for f in sys.meta_path:
                if f is Guard:
                    continue
                spec = f.find_spec(name, path, target)
                if spec is not None:
                    break
            else:
                return None
            o = spec.origin
            if o in ("built-in", "frozen") or (
                    o and o.startswith(stdlib) and "-packages/" not in o[len(stdlib):]):
                return spec
            _IC_REFUSED.append(name)
            raise ImportError("not the standard library's: %s" % (o,))
    return Guard


def _ic_hook(cache, snap, real, path_finder):
    """A _find_and_load that restores a recorded closure when the cold
    import could not differ, else calls the real one.  snap: sys.path,
    meta_path and path_hooks when the cache was recorded."""
    snap_path, snap_meta, snap_hooks = snap
    n_snap = len(snap_path)
    locks = getattr(sys.modules["_frozen_importlib"], "_module_locks", {})
    imp = sys.modules["_imp"]

    def usable(e):
        new, newpic, parents, adds, sizes, regs, tops, requires = e
        mods = sys.modules
        s = mods["sys"]
        k = len(s.path) - n_snap
        if k < 0 or s.path[k:] != snap_path or s.meta_path != snap_meta or s.path_hooks != snap_hooks:
            return False
        for n, _m in new:
            if n in mods or n in locks:
                return False
        for holder, _a, _v in parents:
            if mods.get(holder.__name__) is not holder:
                return False
        for n, m in requires:
            if mods.get(n) is not m:
                return False
        for d, key, _v in adds:
            if key in d:
                return False
        for d, n0, room in sizes:
            if len(d) != n0 and not n0 <= len(d) <= room:
                return False
        # entries in front of the recorded sys.path (the script's directory,
        # the tool's own): asked first by the cold import, so asked here
        for entry in s.path[:k]:
            f = path_finder._path_importer_cache(entry)
            if f is None:
                continue
            fs = getattr(f, "find_spec", None)
            if fs is None:
                return False
            for t in tops:
                if fs(t) is not None:
                    return False
        return True

    def _find_and_load(name, import_):
        entries = cache.get(name)
        if entries is None or name in sys.modules:
            return real(name, import_)
        # under the global import lock: two threads cannot both restore it
        ok = False
        imp.acquire_lock()
        try:
            for e in entries:
                try:
                    ok = name not in sys.modules and usable(e)
                except Exception:  # noqa: BLE001 - the normal import decides
                    ok = False
                if ok:
                    restore(e)
                    break
        finally:
            imp.release_lock()
        if not ok:
            return real(name, import_)
        return sys.modules[name]

    def restore(e):
        new, newpic, parents, adds, _sizes, regs, _tops, _requires = e
        mods = sys.modules
        for n, m in new:
            mods[n] = m
        for holder, attr, v in parents:
            setattr(holder, attr, v)
        for d, key, v in adds:
            d[key] = v
        for cls, sub in regs:
            cls.register(sub)
        pic = sys.path_importer_cache
        for p, f in newpic:
            if p not in pic:
                pic[p] = f
                if f is not None:
                    f.invalidate_caches()

    # named as importlib's own frames, which CPython cuts from tracebacks
    co = _find_and_load.__code__.replace(co_filename=real.__code__.co_filename)
    fn = type(real)(co, _find_and_load.__globals__, "_find_and_load", None,
                    _find_and_load.__closure__)
    fn.__qualname__ = real.__qualname__
    fn.__module__ = real.__module__
    fn.__doc__ = real.__doc__
    return fn
