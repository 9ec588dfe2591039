// The index (`/` and `/index.html`, routes/index.go): the listed paths as pretty JSON.

import type { PathRecorderMux } from '../mux/pathrecorder.ts';

/** `{"paths": [...]}`, two-space indented, no trailing newline, application/json. */
export function indexResponse(paths: string[], status = 200): Response {
  return new Response(JSON.stringify({ paths }, null, 2), { status, headers: { 'content-type': 'application/json' } });
}

/** Installs `/` and `/index.html` as unlisted exact paths; the list is computed per request. */
export function installIndex(mux: PathRecorderMux, listedPaths: () => string[]): void {
  const handler = () => indexResponse(listedPaths());
  mux.unlistedHandle('/', handler);
  mux.unlistedHandle('/index.html', handler);
}
