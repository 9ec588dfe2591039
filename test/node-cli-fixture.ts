// The edge-apiserver CLI plus test-only extras, run as a child process by node-cli.test.ts and
// test/reliability/operational*.test.ts:
// - GET /slow?ms=N answers after N ms, with `x-served-by: <pid>`;
// - EDGE_APISERVER_TEST_FAIL_HOOK=1 adds a failing post-start hook;
// - EDGE_APISERVER_TEST_ACCEPTED=<file>: the `x-load-id` of every request that entered the handler
//   chain is written there (one a line) when the process exits after its shutdown;
// - EDGE_APISERVER_TEST_HEADERS_TIMEOUT_MS / EDGE_APISERVER_TEST_IDLE_TIMEOUT_MS shorten the
//   listener's ReadHeaderTimeout / IdleTimeout (32 s / 90 s).
import { writeFileSync } from 'node:fs';
import { main } from '../adapters/node/cli.ts';

const env = process.env;
const accepted: string[] = [];
const ms = (v: string | undefined) => (v ? Number(v) : undefined);

const code = await main(process.argv.slice(2), {
  listener: { headersTimeout: ms(env.EDGE_APISERVER_TEST_HEADERS_TIMEOUT_MS), idleTimeout: ms(env.EDGE_APISERVER_TEST_IDLE_TIMEOUT_MS) },
  configure: (config) => {
    config.routeInstallers.push((server) => {
      server.handler.nonGoRestfulMux.handle('/slow', async (ctx) => {
        await new Promise((r) => setTimeout(r, Number(ctx.url.searchParams.get('ms') ?? 1000)));
        return new Response('slow done', { headers: { 'x-served-by': String(process.pid) } });
      });
    });
    if (env.EDGE_APISERVER_TEST_FAIL_HOOK) {
      config.postStartHooks.set('fail-hook', async () => {
        throw new Error('boom');
      });
    }
    if (env.EDGE_APISERVER_TEST_ACCEPTED) {
      const build = config.buildHandlerChainFunc;
      config.buildHandlerChainFunc = (handler, c) => {
        const chain = build(handler, c);
        return (ctx) => {
          const id = ctx.request.headers.get('x-load-id');
          if (id) accepted.push(id);
          return chain(ctx);
        };
      };
    }
  },
});
if (env.EDGE_APISERVER_TEST_ACCEPTED) writeFileSync(env.EDGE_APISERVER_TEST_ACCEPTED, accepted.join('\n'));
process.exit(code);
