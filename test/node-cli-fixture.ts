// The edge-apiserver CLI plus test-only extras, run as a child process by node-cli.test.ts:
// GET /slow?ms=N answers after N ms; EDGE_APISERVER_TEST_FAIL_HOOK=1 adds a failing post-start hook.
import { main } from '../adapters/node/cli.ts';

const code = await main(process.argv.slice(2), {
  configure: (config) => {
    config.routeInstallers.push((server) => {
      server.handler.nonGoRestfulMux.handle('/slow', async (ctx) => {
        await new Promise((r) => setTimeout(r, Number(ctx.url.searchParams.get('ms') ?? 1000)));
        return new Response('slow done');
      });
    });
    if (process.env.EDGE_APISERVER_TEST_FAIL_HOOK) {
      config.postStartHooks.set('fail-hook', async () => {
        throw new Error('boom');
      });
    }
  },
});
process.exit(code);
