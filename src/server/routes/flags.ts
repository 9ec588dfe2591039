// /debug/flags (routes/flags.go): a page listing the settable flags and `PUT /debug/flags/v`
// to change the log verbosity at run time. Unlisted, like every /debug path.

import type { Handler } from '../../endpoints/request/context.ts';
import type { PathRecorderMux } from '../mux/pathrecorder.ts';
import type { Logger } from '../../util/logger.ts';
import { goQuote } from '../../util/go.ts';

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain' } });
}

/** klog's Level.Set: a base-10 int32. */
function parseLevel(raw: string): number {
  if (!/^[+-]?\d+$/.test(raw)) throw new Error(`strconv.ParseInt: parsing ${goQuote(raw)}: invalid syntax`);
  const n = Number(raw);
  if (n > 2 ** 31 - 1 || n < -(2 ** 31))
    throw new Error(`strconv.ParseInt: parsing ${goQuote(raw)}: value out of range`);
  return n;
}

/** StringFlagPutHandler for klog verbosity. */
export function verbosityHandler(logger: Logger): Handler {
  return async (ctx) => {
    if (ctx.request.method !== 'PUT') return text(406, 'unsupported http method\n');
    const value = await ctx.request.text();
    try {
      const level = parseLevel(value);
      logger.setVerbosity?.(level);
    } catch (err) {
      return text(400, `failed set klog.logging.verbosity ${value}: ${(err as Error).message}\n`);
    }
    return text(200, `successfully set klog.logging.verbosity to ${value}\n`);
  };
}

const indexPage =
  '<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\nflags:<br>\n<table>\n' +
  '<tr><td><a href="v">v</a><br>\n</table>\n<br>\nfull flags configurable<br>\n</body>\n</html>\n';

/** Installs /debug/flags, /debug/flags/ and /debug/flags/v. */
export function installDebugFlags(mux: PathRecorderMux, logger: Logger): void {
  const index: Handler = () => new Response(indexPage, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  mux.unlistedHandle('/debug/flags', index);
  mux.unlistedHandlePrefix('/debug/flags/', index);
  mux.unlistedHandle('/debug/flags/v', verbosityHandler(logger));
}
