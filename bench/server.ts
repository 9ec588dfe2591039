// One benchmark server per process (so each gets its own event loop and core):
//   node bench/server.ts <variant> <certDir>
// prints `PORT <n>` once it listens on 127.0.0.1. Variants (bench/variants.ts) share the TLS
// certificate, the route and the response body; only what sits between socket and route differs.

import { apiVariants } from './api-variants.ts';
import { diagnostics, variants as main } from './variants.ts';

const variants = [...main, ...apiVariants, ...diagnostics];

const [name, certDir] = process.argv.slice(2);
const variant = variants.find((v) => v.name === name);
if (!variant || !certDir) {
  console.error(`usage: node bench/server.ts <${variants.map((v) => v.name).join('|')}> <certDir>`);
  process.exit(2);
}
const { port, stop } = await variant.start(certDir);
console.log(`PORT ${port}`);
const shutdown = () => void stop().finally(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
