// The Worker's entry point for wrangler (wrangler.toml main): the Worker and the Store Durable
// Object class it binds (STORE). Kept apart from ./worker.ts, which also loads outside workerd
// (Node tests, other bundlers), because ./store.ts imports `cloudflare:workers`.
export { default } from './worker.ts';
export { Store } from './store.ts';
