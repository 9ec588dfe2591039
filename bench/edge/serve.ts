// Deno/Bun entry of bench/edge/run.ts: BENCH_MODE=bare serves bare Hono, BENCH_MODE=chain the
// edge-apiserver chain through the runtime's adapter (default flags), plain HTTP on an
// ephemeral loopback port announced as `LISTENING <port>`.
import { bareApp } from './bare.ts';

declare const Deno:
  { serve: (options: object, handler: unknown) => unknown; env: { get(n: string): string | undefined } } | undefined;
declare const Bun:
  { serve: (options: object) => { port: number }; env: Record<string, string | undefined> } | undefined;

const mode = typeof Deno !== 'undefined' ? Deno.env.get('BENCH_MODE') : Bun!.env.BENCH_MODE;
if (typeof Deno !== 'undefined') {
  if (mode === 'chain') {
    const { serve } = await import('../../adapters/deno/mod.ts');
    await serve({ port: 0, hostname: '127.0.0.1', onListen: ({ port }) => console.log(`LISTENING ${port}`) });
  } else {
    Deno.serve(
      { port: 0, hostname: '127.0.0.1', onListen: ({ port }: { port: number }) => console.log(`LISTENING ${port}`) },
      bareApp.fetch,
    );
  }
} else {
  if (mode === 'chain') {
    const { serve } = await import('../../adapters/bun/index.ts');
    const s = await serve({ port: 0, hostname: '127.0.0.1' });
    console.log(`LISTENING ${s.port}`);
  } else {
    const s = Bun!.serve({ port: 0, hostname: '127.0.0.1', fetch: bareApp.fetch });
    console.log(`LISTENING ${s.port}`);
  }
}
