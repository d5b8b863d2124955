'use strict';
// spawnkit for Node.js: spawn templates with a child_process-like API.
const { Template } = require('./lib/template');
const { SpawnkitChild } = require('./lib/child');
const {
  run, execFile, clearTemplateCache, configureTemplateCache, templateCacheSize, templateCacheMaxSize,
  warmStats, warmShutdown,
} = require('./lib/run');
const { AbortError } = require('./lib/errors');
const { registerStats } = require('./lib/register/stats');
const { registerOptions } = require('./lib/register/options');

module.exports = {
  Template,
  SpawnkitChild,
  run,
  execFile,
  clearTemplateCache,
  configureTemplateCache,
  templateCacheSize,
  templateCacheMaxSize,
  warmStats,
  warmShutdown,
  AbortError,
  // Starts routed through spawnkit / handed to stock by spawnkit/register.
  registerStats,
  // register's settings: { childNice, childPolicy, childSliceMs, loopSliceMs }
  // (lib/register/options.js).
  registerOptions,
  // The addon resolves commands with the C library's PATH search (always,
  // since libspawnkit always has it; kept as part of the API).
  nativePathSearch: true,
};

// 'user', 'kernel' or 'fallback'.  Where the addon cannot work (no addon,
// no pidfds, SPAWNKIT_BACKEND=fallback) run() and execFile() go through
// child_process with the same semantics (lib/fallback.js), and Template
// throws ENOSYS.
const choice = require('./lib/backend');
module.exports.backend = choice.backend;
module.exports.fallbackReason = choice.fallbackReason;
if (choice.fallbackReason) Object.assign(module.exports, require('./lib/fallback'));
