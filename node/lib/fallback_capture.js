'use strict';
// HeadTail for the portable fallback only (lib/fallback.js: no C library
// there).  With the addon, spawnkit_run captures (src/run/capture.c).
// Keep at most `limit` bytes of a stream: the first half and the last half,
// counting what fell in between.

class HeadTail {
  constructor(limit) {
    this.limit = limit;
    this.headLimit = Number.isFinite(limit) ? Math.floor(limit / 2) : Infinity;
    this.tailLimit = Number.isFinite(limit) ? limit - this.headLimit : 0;
    this.head = [];
    this.headLen = 0;
    this.tail = [];
    this.tailLen = 0;
    this.total = 0;
  }

  push(chunk) {
    this.total += chunk.length;
    if (this.headLen < this.headLimit) {
      const take = Math.min(chunk.length, this.headLimit - this.headLen);
      this.head.push(take === chunk.length ? chunk : chunk.subarray(0, take));
      this.headLen += take;
      chunk = chunk.subarray(take);
    }
    if (chunk.length === 0 || this.tailLimit === 0) return;
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    // Drop whole chunks that lie entirely before the last tailLimit bytes.
    while (this.tail.length > 1 && this.tailLen - this.tail[0].length >= this.tailLimit) {
      this.tailLen -= this.tail.shift().length;
    }
  }

  get dropped() {
    return this.total - this.headLen - Math.min(this.tailLen, this.tailLimit);
  }

  // [headBuffer, tailBuffer]
  parts() {
    let tail = Buffer.concat(this.tail, this.tailLen);
    if (tail.length > this.tailLimit) tail = tail.subarray(tail.length - this.tailLimit);
    return [Buffer.concat(this.head, this.headLen), tail];
  }

  // [head, tail] as Buffers or strings (each part decoded on its own, so a
  // character cut by the limit never spills into the other part).
  decoded(encoding) {
    const parts = this.parts();
    return encoding === 'buffer' ? parts : parts.map((p) => p.toString(encoding));
  }
}

module.exports = { HeadTail };
