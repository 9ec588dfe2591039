// Small helpers for the filter tests (portable, no node:*): a context for a URL, a completed
// config with a silent logger, and a handler that records what it saw.

import {
  newRequestContext,
  finalizeResponse,
  type Handler,
  type RequestContext,
  type Transport,
} from '../endpoints/request/context.ts';
import { RequestInfoFactory } from '../endpoints/request/requestinfo.ts';
import { complete, newConfig, type CompletedConfig, type Config } from '../server/config.ts';
import { discardLogger } from '../util/logger.ts';

const resolver = new RequestInfoFactory({ apiPrefixes: ['api', 'apis'], grouplessAPIPrefixes: ['api'] });

/** A context for `https://example.test<path>`, with RequestInfo resolved unless `noInfo`. */
export function testContext(
  path: string,
  init?: RequestInit & { transport?: Transport; noInfo?: boolean },
): RequestContext {
  const ctx = newRequestContext(new Request('https://example.test' + path, init), init?.transport);
  if (!init?.noInfo) ctx.requestInfo = resolver.newRequestInfo(ctx.request, ctx.url);
  return ctx;
}

export function testConfig(overrides: Partial<Config> = {}): CompletedConfig {
  return complete(newConfig({ logger: discardLogger, ...overrides }));
}

/** A handler answering 200 "ok" (or `respond`), remembering the contexts it was called with. */
export function recorder(
  respond: (ctx: RequestContext) => Response | Promise<Response> = () => new Response('ok'),
): Handler & { calls: RequestContext[] } {
  const calls: RequestContext[] = [];
  const h = ((ctx: RequestContext) => {
    calls.push(ctx);
    return respond(ctx);
  }) as Handler & { calls: RequestContext[] };
  h.calls = calls;
  return h;
}

/** Runs a handler the way GenericAPIServer.fetch does (shared header map merged at the end). */
export async function serve(h: Handler, ctx: RequestContext): Promise<Response> {
  return finalizeResponse(ctx, await h(ctx));
}
