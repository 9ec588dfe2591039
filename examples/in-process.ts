// Embedding (c): call the server in-process, no network: tests, a CLI tool, a service that
// answers health/version itself, or a Worker calling it as a function.
import { EdgeServer } from '../src/index.ts';

export const apiserver = new EdgeServer({ flags: '--v=0' });

export async function readyz(): Promise<string> {
  const res = await apiserver.fetch(new Request('https://apiserver.local/readyz?verbose'), {
    remoteAddress: '127.0.0.1',
  });
  return res.text();
}
