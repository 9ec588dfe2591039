// The baseline of the edge benchmark: bare Hono answering GET /healthz with `ok`, as a Worker
// (default export) and as an app for Deno.serve / Bun.serve.
import { Hono } from 'hono';

export const bareApp = new Hono();
bareApp.get('/healthz', (c) => c.text('ok'));

export default bareApp;
