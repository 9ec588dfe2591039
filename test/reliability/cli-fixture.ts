// The edge-apiserver command (adapters/node/cli.ts main) as the reliability suite runs it: the
// real flags, listener and chain, with Go's ReadHeaderTimeout shortened by
// EDGE_APISERVER_TEST_HEADERS_TIMEOUT_MS (the slow-client cases would otherwise wait 32 s).
import module from 'node:module';

// As adapters/node/bin.mjs: start-up is mostly module compilation, which the cache shortens.
module.enableCompileCache?.();
const { main } = await import('../../adapters/node/cli.ts');
const headersTimeout = Number(process.env.EDGE_APISERVER_TEST_HEADERS_TIMEOUT_MS) || undefined;
process.exit(await main(process.argv.slice(2), { listener: headersTimeout ? { headersTimeout } : {} }));
