'use strict';
// The template cache behind run() and execFile(), keyed by absolute path.
//
// It follows the library's policy (spawnkit_template_cache_max(3)), as the
// Python binding's cache does:
//  - at most native.templateCacheMax() templates (an eighth of RLIMIT_NOFILE,
//    4..256, read again at each insert), least recently used out first:
//    each holds an fd;
//  - a template unused for templateCacheIdleSec seconds is closed (checked
//    whenever the cache is used);
//  - run.js remakes a template that failed with ESTALE or EACCES at most
//    STALE_RETRIES (SPAWNKIT_STALE_RETRIES) times per call.
// Closing a template does not touch the children started from it.
const native = require('./native');
const { Template } = require('./template');

// No addon (the portable fallback, lib/fallback.js): no templates are made.
const REMAKES = native?.STALE_RETRIES ?? 0;

class TemplateCache {
  constructor({ maxSize, idleMs, clock } = {}) {
    this._map = new Map(); // path -> { t, used }, least recently used first
    this._clock = clock ?? (() => performance.now());
    this.configure({ maxSize, idleMs });
  }

  // maxSize: a fixed bound (undefined: the library's); idleMs: how long an
  // unused template stays (undefined: the library's default).  Applies now.
  configure({ maxSize, idleMs } = {}) {
    if (maxSize !== undefined && !(Number.isInteger(maxSize) && maxSize >= 1)) {
      throw new RangeError(`maxSize must be an integer >= 1. Received ${maxSize}`);
    }
    if (idleMs !== undefined && !(typeof idleMs === 'number' && idleMs >= 0)) {
      throw new RangeError(`idleMs must be a number >= 0. Received ${idleMs}`);
    }
    this._maxSize = maxSize;
    this._limit = undefined;
    this._idleMs = idleMs ?? (native?.templateCacheIdleSec ?? 0) * 1000;
    this._trim(this._clock(), 0);
  }

  get maxSize() {
    return this._maxSize ?? native?.templateCacheMax() ?? 0;
  }

  get idleMs() {
    return this._idleMs;
  }

  get size() {
    return this._map.size;
  }

  has(absPath) {
    return this._map.has(absPath);
  }

  // Idle templates out, then the least recently used until `room` more fit.
  // The bound is read again (a system call) only when something is added.
  _trim(now, room) {
    if (room || this._limit === undefined) this._limit = this.maxSize;
    const limit = this._limit;
    for (const [key, e] of this._map) {
      if (now - e.used < this._idleMs && this._map.size + room <= limit) break;
      this._map.delete(key);
      e.t.close();
    }
  }

  // The template for absPath, made if missing; throws what Template throws.
  get(absPath) {
    const now = this._clock();
    const e = this._map.get(absPath);
    this._map.delete(absPath);
    if (e && e.t._h && now - e.used < this._idleMs) {
      e.used = now;
      this._map.set(absPath, e); // most recently used: last
      this._trim(now, 0);
      return e.t;
    }
    if (e) e.t.close();
    this._trim(now, 1);
    const t = new Template(absPath);
    this._map.set(absPath, { t, used: now });
    return t;
  }

  // Forget (and close) the template of absPath.
  drop(absPath) {
    const e = this._map.get(absPath);
    if (e) e.t.close();
    this._map.delete(absPath);
  }

  clear() {
    for (const e of this._map.values()) e.t.close();
    this._map.clear();
  }
}

module.exports = { TemplateCache, REMAKES };
