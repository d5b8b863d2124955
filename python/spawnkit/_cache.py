"""The process-wide cache of templates behind spawn() and run().

It follows the library's policy (spawnkit_template_cache_max(3)), which the
Node binding follows too:
  - at most lib.spawnkit_template_cache_max() templates (an eighth of
    RLIMIT_NOFILE, 4..256, read again at each insert): the least recently
    used one is closed to make room, since each holds an fd;
  - a template unused for SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC is closed
    (checked whenever the cache is used);
  - a template that fails with ESTALE (file replaced) or EACCES (credentials
    changed since it was made) is remade from its path, at most
    SPAWNKIT_STALE_RETRIES times per spawn (see _process.py).
Closing a template another thread is spawning from is safe: the C object
goes when that spawn returns (Template.close()).
"""
from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._ffi import lib
from ._template import StrOrBytesPath, Template

__all__ = ["TemplateCache", "template_cache", "REMAKES"]

#: How many times one spawn remakes a cached template (ESTALE, EACCES).
REMAKES = lib.SPAWNKIT_STALE_RETRIES


class TemplateCache:
    """Templates keyed by absolute path, bounded, safe for many threads.

    get() returns the cached template or makes one; acquire() does the same
    and takes a reference for one spawn (so eviction cannot free it under
    the caller); replace() swaps a template that failed for a new one made
    from the same path (once, when many threads hit the same template).

    max_size: a fixed bound instead of the library's (None); idle_seconds:
    how long an unused template stays (None: the library's default).
    """

    def __init__(self, max_size: Optional[int] = None,
                 idle_seconds: Optional[float] = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._map: "OrderedDict[bytes, Template]" = OrderedDict()  # LRU first
        self._used: Dict[bytes, float] = {}
        self._clock = clock
        self.configure(max_size, idle_seconds)

    def configure(self, max_size: Optional[int] = None,
                  idle_seconds: Optional[float] = None) -> None:
        """Set the bound (None: the library's, from RLIMIT_NOFILE) and the
        idle time (None: SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC); applies now."""
        if max_size is not None and max_size < 1:
            raise ValueError("max_size must be >= 1")
        if idle_seconds is not None and idle_seconds < 0:
            raise ValueError("idle_seconds must be >= 0")
        with self._lock:
            self._max_size = max_size
            self._limit: Optional[int] = None
            self._idle = (float(lib.SPAWNKIT_TEMPLATE_CACHE_IDLE_SEC)
                          if idle_seconds is None else float(idle_seconds))
            gone = self._trim(self._clock(), 0)
        for t in gone:
            t.close()

    @property
    def max_size(self) -> int:
        """The bound in force now."""
        return self._max_size if self._max_size is not None else lib.spawnkit_template_cache_max()

    @property
    def idle_seconds(self) -> float:
        return self._idle

    def _trim(self, now: float, room: int) -> List[Template]:
        """Under the lock: drop idle templates, then the least recently used
        until `room` more fit; returns them for closing.  The bound is read
        again (a system call) only when something is added."""
        gone: List[Template] = []
        if room or self._limit is None:
            self._limit = self.max_size
        limit = self._limit
        if not room and len(self._map) <= limit:
            # a hit (nothing added): only the least recently used one can
            # have gone idle first; no copy of the keys for that
            oldest = next(iter(self._map), None)
            if oldest is None or now - self._used[oldest] < self._idle:
                return gone
        for key in list(self._map):
            if now - self._used[key] < self._idle and len(self._map) + room <= limit:
                break               # the rest were used more recently
            gone.append(self._map.pop(key))
            del self._used[key]
        return gone

    def _lookup(self, key: bytes) -> Tuple[Template, List[Template]]:
        """Under the lock: the template for key (made if missing, LRU end)."""
        now = self._clock()
        t = self._map.get(key)
        if t is not None and not t.closed and now - self._used[key] < self._idle:
            self._map.move_to_end(key)
            self._used[key] = now
            return t, self._trim(now, 0)
        gone = []
        if t is not None:          # idle, or closed by its user: a new one
            del self._map[key]
            del self._used[key]
            gone.append(t)
        gone += self._trim(now, 1)
        t = Template(key)          # may raise: nothing cached
        self._map[key] = t
        self._used[key] = now
        return t, gone

    def get(self, path: StrOrBytesPath) -> Template:
        key = os.fsencode(path)
        with self._lock:
            t, gone = self._lookup(key)
        for old in gone:
            old.close()
        return t

    def acquire(self, path: StrOrBytesPath,
                failed: Optional[Template] = None) -> Tuple[Template, Any]:
        """get() plus a spawn reference on the template (release it with
        Template._release()), taken under the cache lock, so an eviction by
        another thread only marks it closed until then.  With `failed`:
        replace() that template first."""
        key = os.fsencode(path)
        with self._lock:
            if failed is not None:
                self._drop_locked(key, failed)
            t, gone = self._lookup(key)
            ptr = t._acquire()
        for old in gone:
            old.close()
        return t, ptr

    def _drop_locked(self, key: bytes, failed: Template) -> None:
        """Under the lock: forget `failed` if it is still the cached one."""
        if self._map.get(key) is failed:
            del self._map[key]
            del self._used[key]
        failed.close()

    def replace(self, path: StrOrBytesPath, failed: Template) -> Template:
        """A new template for path in place of `failed` (ESTALE, EACCES);
        if another thread already replaced it, that one."""
        key = os.fsencode(path)
        with self._lock:
            self._drop_locked(key, failed)
            t, gone = self._lookup(key)   # may raise (file gone): nothing cached
        for old in gone:
            old.close()
        return t

    # The name the ESTALE-only version had.
    replace_stale = replace

    def discard(self, path: StrOrBytesPath) -> None:
        key = os.fsencode(path)
        with self._lock:
            t = self._map.pop(key, None)
            self._used.pop(key, None)
        if t is not None:
            t.close()

    def clear(self) -> None:
        with self._lock:
            ts = list(self._map.values())
            self._map.clear()
            self._used.clear()
        for t in ts:
            t.close()

    def __len__(self) -> int:
        return len(self._map)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, (str, bytes, os.PathLike)) and os.fsencode(path) in self._map

    def _after_fork(self) -> None:
        # A lock held by another thread at fork() would stay held forever.
        # (A template has no lock: its holds are atomics, _template.py.)
        self._lock = threading.Lock()


#: The process-wide cache behind spawnkit.spawn() and spawnkit.run().
template_cache = TemplateCache()
os.register_at_fork(after_in_child=template_cache._after_fork)
