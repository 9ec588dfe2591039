// Embedding (a): an existing Hono app serves its own routes and mounts the API server under
// /k8s. hono/mount strips the prefix, so the server sees /healthz, /version, /api/… as usual
// and clients use https://host/k8s as the server URL (kubeconfig `server:` may carry a path).
import { Hono } from 'hono';
import { mount } from 'hono/mount';
import { EdgeServer } from '../src/index.ts';

export function createApp(apiserver: EdgeServer): Hono {
  const app = new Hono();
  app.get('/', (c) => c.text('my app'));
  app.get('/hello', (c) => c.json({ hello: 'world' }));
  // Only the request: the second argument of server.fetch is the Transport, not Hono's env.
  app.all(
    '/k8s/*',
    mount((request: Request) => apiserver.fetch(request)),
  );
  return app;
}

// Usage:
//   const apiserver = new EdgeServer({ flags: '--token-auth-file=/tokens.csv', files: { '/tokens.csv': '…' } });
//   export default createApp(apiserver);            // Workers, Bun, Deno: { fetch }
