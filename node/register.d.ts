// `import 'spawnkit/register'` / `require('spawnkit/register')`: side effects only.
export {};
