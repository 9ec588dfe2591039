import { test } from 'node:test';
import assert from 'node:assert/strict';
import { complete, newConfig, newServer } from '../config.ts';
import { namedCheck } from './healthz.ts';

function server(overrides = {}) {
  return newServer(complete(newConfig(overrides)), 'test');
}

async function get(s: { fetch(r: Request): Promise<Response> }, path: string) {
  const r = await s.fetch(new Request('https://127.0.0.1' + path));
  return { status: r.status, headers: r.headers, body: await r.text() };
}

test('1: GET /healthz is a bare ok with text/plain and nosniff', async () => {
  const r = await get(server().prepareRun(), '/healthz');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(r.body, 'ok');
});

test('2: /healthz?verbose lists checks, finished post-start hooks, and the passed line', async () => {
  const s = server();
  s.addPostStartHook('quick', () => {});
  s.prepareRun();
  const stop = new AbortController();
  const run = s.run({ signal: stop.signal });
  await new Promise((r) => setTimeout(r, 10));
  const r = await get(s, '/healthz?verbose');
  assert.equal(r.status, 200);
  assert.equal(r.body, '[+]ping ok\n[+]log ok\n[+]poststarthook/quick ok\nhealthz check passed\n');
  stop.abort();
  await run;
});

test('3: ?verbose=false is still verbose; readyz has shutdown last', async () => {
  const r = await get(server().prepareRun(), '/readyz?verbose=false');
  assert.equal(r.status, 200);
  assert.equal(r.body, '[+]ping ok\n[+]log ok\n[+]shutdown ok\nreadyz check passed\n');
});

test('4: unknown exclude is silent unless verbose, then warns before the passed line', async () => {
  const s = server().prepareRun();
  const quiet = await get(s, '/readyz?exclude=nosuch');
  assert.equal(quiet.status, 200);
  assert.equal(quiet.body, 'ok');
  const verbose = await get(s, '/readyz?exclude=nosuch&verbose');
  assert.ok(
    verbose.body.endsWith(
      'warn: some health checks cannot be excluded: no matches for "nosuch"\nreadyz check passed\n',
    ),
    verbose.body,
  );
});

test('5: exclude=ping excludes it; a comma list is one unknown name', async () => {
  const s = server().prepareRun();
  const one = await get(s, '/readyz?exclude=ping&verbose');
  assert.match(one.body, /^\[\+\]ping excluded: ok\n/);
  const comma = await get(s, '/readyz?exclude=ping,log&verbose');
  assert.match(comma.body, /^\[\+\]ping ok\n\[\+\]log ok\n/);
  assert.match(comma.body, /no matches for "ping,log"\n/);
  const two = await get(s, '/readyz?exclude=ping&exclude=nope&exclude=zz&verbose');
  assert.match(two.body, /no matches for "nope","zz"\n/);
});

test('grouped checks are excluded with their group', async () => {
  const s = server({
    readyzChecks: [namedCheck('etcd', () => {}, 'etcd'), namedCheck('etcd-override-0', () => {}, 'etcd')],
  });
  s.prepareRun();
  const r = await get(s, '/readyz?exclude=etcd&verbose');
  assert.equal(
    r.body,
    '[+]etcd excluded: ok\n[+]etcd-override-0 excluded with etcd: ok\n[+]shutdown ok\nreadyz check passed\n',
  );
});

test('6: a blocked post-start hook fails readyz (reason withheld) and its subpath (reason shown)', async () => {
  const s = server();
  s.addPostStartHook('blocker', () => new Promise(() => {}));
  s.prepareRun();
  const stop = new AbortController();
  const run = s.run({ signal: stop.signal });
  const r = await get(s, '/readyz');
  assert.equal(r.status, 500);
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.match(r.body, /\[-\]poststarthook\/blocker failed: reason withheld\n/);
  assert.ok(r.body.endsWith('readyz check failed\n'));
  const sub = await get(s, '/readyz/poststarthook/blocker');
  assert.equal(sub.status, 500);
  assert.equal(sub.body, 'internal server error: not finished\n');
  assert.equal((await get(s, '/livez')).status, 500, 'no grace period: livez fails too');
  stop.abort();
  await run;
});

test('7: livez grace period keeps a blocked hook green until it passes', async () => {
  const s = server({ livezGracePeriod: 300 });
  s.addPostStartHook('blocker', () => new Promise(() => {}));
  s.prepareRun();
  const stop = new AbortController();
  const run = s.run({ signal: stop.signal });
  assert.equal((await get(s, '/livez')).body, 'ok');
  assert.equal((await get(s, '/readyz')).status, 500, 'readyz has no grace');
  await new Promise((r) => setTimeout(r, 350));
  const late = await get(s, '/livez');
  assert.equal(late.status, 500);
  assert.match(late.body, /\[-\]poststarthook\/blocker failed: reason withheld/);
  stop.abort();
  await run;
});

test('per-check subpaths: ok body, unknown and trailing slash fall through', async () => {
  const s = server().prepareRun();
  const ping = await get(s, '/healthz/ping?verbose');
  assert.equal(ping.status, 200);
  assert.equal(ping.body, 'ok');
  assert.equal((await get(s, '/healthz/nope')).status, 404);
  assert.equal((await get(s, '/healthz/')).status, 404);
});

test('health endpoints are method-agnostic', async () => {
  const s = server().prepareRun();
  const r = await s.fetch(new Request('https://x/healthz', { method: 'POST' }));
  assert.equal(r.status, 200);
  assert.equal(await r.text(), 'ok');
});

test('adding a check after the endpoint is installed fails as upstream', () => {
  const s = server().prepareRun();
  assert.throws(
    () => s.addHealthChecks(namedCheck('late', () => {})),
    /unable to add because the \/healthz endpoint has already been created/,
  );
  assert.throws(() => s.addPostStartHook('late', () => {}), /endpoint has already been created/);
});

test('HasBeenReady fires on the first successful /readyz', async () => {
  const c = newConfig();
  const s = newServer(complete(c), 'test').prepareRun();
  assert.equal(c.lifecycleSignals.HasBeenReady.hasFired, false);
  await get(s, '/readyz');
  assert.equal(c.lifecycleSignals.HasBeenReady.hasFired, true);
});
