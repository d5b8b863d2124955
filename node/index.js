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
  // The addon resolves commands with the C library's PATH search (always,
  // since libspawnkit always has it; kept as part of the API).
  nativePathSearch: true,
};
