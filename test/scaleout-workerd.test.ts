// Workers (issue 19): the stock Worker under `wrangler dev` (workerd, the Store Durable Object as
// storage). Two concurrent watches through the Worker see a write made by a third request; a watch
// that is cut (as the platform cuts long requests) resumes by resourceVersion on a new request
// without a gap or a duplicate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, REPO_ROOT, spawnUntil } from './conformance/harness.ts';

interface Event {
  type: string;
  object: { metadata: { name?: string; resourceVersion?: string } };
}

/** A watch over fetch: events as they arrive; stop() aborts the request. */
function watch(url: string) {
  const ac = new AbortController();
  const events: Event[] = [];
  let wake: (() => void) | undefined;
  let failure: unknown;
  const done = (async () => {
    const r = await fetch(url, { signal: ac.signal });
    if (r.status !== 200) assert.fail(`watch ${url}: ${r.status} ${await r.text()}`);
    const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) events.push(JSON.parse(line) as Event);
        wake?.();
      }
    }
  })().catch((err: unknown) => {
    // Recorded, not thrown: `until` reports it with the events seen.
    if (!ac.signal.aborted) failure = err;
  });
  return {
    events,
    done,
    stop: () => ac.abort(),
    async until(pred: (e: Event[]) => boolean, ms = 20_000) {
      const end = Date.now() + ms;
      while (!pred(events)) {
        if (Date.now() > end || failure)
          throw new Error(`watch ${url}: ${String(failure ?? 'timed out')}: ${JSON.stringify(events)}`);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 100);
        });
      }
    },
  };
}

test(
  "Worker: two watches see a third request's write; a cut watch resumes by resourceVersion",
  { timeout: 120_000 },
  async () => {
    const flags = ['--authorization-mode=AlwaysAllow', '--anonymous-auth=true'];
    const proc = await spawnUntil(
      BIN + 'wrangler',
      [
        'dev',
        '--config',
        'wrangler.toml',
        '--ip',
        '127.0.0.1',
        '--port',
        '0',
        '--inspector-port',
        '0',
        '--show-interactive-dev-session=false',
        '--log-level',
        'info',
        '--persist-to',
        `/tmp/scaleout-workerd-${process.pid}`,
        '--var',
        `APISERVER_FLAGS:${JSON.stringify(flags)}`,
      ],
      {
        ready: /Ready on http:\/\/127\.0\.0\.1:(\d+)/,
        timeoutMs: 60_000,
        env: { PATH: `${BIN}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
        cwd: REPO_ROOT,
      },
    );
    try {
      const base = `http://127.0.0.1:${proc.match[1]}`;
      const path = '/api/v1/namespaces/default/configmaps';
      const post = async (name: string) => {
        const r = await fetch(base + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
        });
        const body = (await r.json()) as { metadata: { resourceVersion: string } };
        assert.equal(r.status, 201, JSON.stringify(body));
        return body.metadata.resourceVersion;
      };
      // The default namespace is created by the Worker's controllers shortly after the first request.
      for (let i = 0; ; i++) {
        const r = await fetch(base + '/api/v1/namespaces/default');
        await r.arrayBuffer();
        if (r.status === 200) break;
        if (i > 100) throw new Error('no default namespace');
        await new Promise((res) => setTimeout(res, 100));
      }
      const list = (await (await fetch(base + path)).json()) as { metadata: { resourceVersion: string } };
      const rv = list.metadata.resourceVersion;
      const w1 = watch(`${base}${path}?watch=1&resourceVersion=${rv}`);
      const w2 = watch(`${base}${path}?watch=1&resourceVersion=${rv}`);
      const rv1 = await post('one');
      for (const w of [w1, w2]) {
        await w.until((e) => e.some((x) => x.object.metadata.name === 'one'));
        assert.deepEqual(
          w.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
          [['ADDED', 'one', rv1]],
        );
      }
      // The platform cuts w1; writes go on; the client re-watches from the last resourceVersion it saw.
      w1.stop();
      await w1.done;
      const rv2 = await post('two');
      const rv3 = await post('three');
      const resumed = watch(`${base}${path}?watch=1&resourceVersion=${rv1}`);
      await resumed.until((e) => e.length >= 2);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(
        resumed.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
        [
          ['ADDED', 'two', rv2],
          ['ADDED', 'three', rv3],
        ],
      );
      await w2.until((e) => e.length >= 3);
      assert.deepEqual(
        w2.events.map((e) => e.object.metadata.name),
        ['one', 'two', 'three'],
      );
      resumed.stop();
      w2.stop();
      await Promise.all([resumed.done, w2.done]);
    } finally {
      await proc.stop();
    }
  },
);
