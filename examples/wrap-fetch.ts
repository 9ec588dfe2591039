// Embedding (b): put kube-apiserver's filter chain (audit ID, panic recovery, request info,
// timeouts, CORS, authentication, audit, impersonation, flow control, authorization) in front of
// a fetch handler you already have. The chain takes a Handler (ctx → Response); ctx.request is
// the request as the filters left it (authentication strips the Authorization header) and
// ctx.user is who made it.
import {
  buildHandlerChain,
  buildServerFromFlags,
  complete,
  finalizeResponse,
  MemoryFileSystem,
  newConfig,
  newRequestContext,
  type Config,
  type RequestContext,
  type Transport,
} from '../src/index.ts';

export type FetchHandler = (request: Request, ctx: RequestContext) => Response | Promise<Response>;

/** Wraps `handler` in the chain configured by `config`; returns a plain fetch function. */
export function withKubeChain(
  handler: FetchHandler,
  config: Config = newConfig(),
): (request: Request, transport?: Transport) => Promise<Response> {
  const chain = buildHandlerChain((ctx) => handler(ctx.request, ctx), complete(config));
  return async (request, transport) => {
    const ctx = newRequestContext(request, transport);
    return finalizeResponse(ctx, await chain(ctx));
  };
}

/** The same, configured by kube-apiserver flags (files from memory here; any FileSystem works). */
export async function withKubeChainFromFlags(
  handler: FetchHandler,
  flags: string[],
  files: Record<string, string> = {},
): Promise<(request: Request, transport?: Transport) => Promise<Response>> {
  const { config } = await buildServerFromFlags(flags, { fileSystem: new MemoryFileSystem(files) });
  return withKubeChain(handler, config);
}
