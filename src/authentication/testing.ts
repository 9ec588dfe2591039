// Small helpers for authentication tests (not exported from the package).

import { newRequestContext, type RequestContext, type Transport } from '../endpoints/request/context.ts';

export function ctxFor(headers: Record<string, string> | [string, string][] = {}, transport?: Transport, url = 'https://example.test/api'): RequestContext {
  return newRequestContext(new Request(url, { headers }), transport);
}
