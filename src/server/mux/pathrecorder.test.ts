import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PathRecorderMux } from './pathrecorder.ts';
import { newRequestContext } from '../../endpoints/request/context.ts';

const named = (name: string) => () => new Response(name);

async function serve(mux: PathRecorderMux, path: string) {
  const r = await mux.serve(newRequestContext(new Request('https://x' + path)));
  return { status: r.status, body: await r.text() };
}

test('21: prefix must end in a slash', () => {
  const mux = new PathRecorderMux('t');
  assert.throws(() => mux.handlePrefix('/p', named('p')), { message: '"/p" must end in a trailing slash' });
  assert.throws(() => mux.unlistedHandlePrefix('/p', named('p')), { message: '"/p" must end in a trailing slash' });
});

test('21: prefix /p/ does not match /p; exact beats prefix; longest prefix wins', async () => {
  const mux = new PathRecorderMux('t');
  mux.handlePrefix('/p/', named('prefix'));
  assert.deepEqual(await serve(mux, '/p'), { status: 404, body: '404 page not found\n' });
  assert.equal((await serve(mux, '/p/x')).body, 'prefix');
  assert.equal((await serve(mux, '/p/')).body, 'prefix');
  mux.handle('/p/x', named('exact'));
  assert.equal((await serve(mux, '/p/x')).body, 'exact');
  mux.handlePrefix('/a/', named('a'));
  mux.handlePrefix('/a/b/', named('ab'));
  assert.equal((await serve(mux, '/a/b/c')).body, 'ab');
  assert.equal((await serve(mux, '/a/c')).body, 'a');
});

test('exact means exact: /x/ and /x are different paths', async () => {
  const mux = new PathRecorderMux('t');
  mux.handle('/x/', named('slash'));
  assert.equal((await serve(mux, '/x')).status, 404);
  assert.equal((await serve(mux, '/x/')).body, 'slash');
});

test('22: duplicate registration does not throw; the last one serves; listed twice', async () => {
  const mux = new PathRecorderMux('t');
  const dups: string[] = [];
  mux.onDuplicate = (p) => dups.push(p);
  mux.handle('/dup', named('first'));
  mux.handle('/dup', named('second'));
  assert.equal((await serve(mux, '/dup')).body, 'second');
  assert.deepEqual(dups, ['/dup']);
  assert.deepEqual(mux.listedPaths(), ['/dup', '/dup']);
});

test('unlisted paths are served but not listed; unregister removes everything', async () => {
  const mux = new PathRecorderMux('t');
  mux.unlistedHandle('/hidden', named('h'));
  mux.handle('/b', named('b'));
  mux.handle('/a', named('a'));
  assert.deepEqual(mux.listedPaths(), ['/a', '/b']);
  assert.equal((await serve(mux, '/hidden')).body, 'h');
  mux.unregister('/a');
  assert.deepEqual(mux.listedPaths(), ['/b']);
  assert.equal((await serve(mux, '/a')).status, 404);
});

test('not-found handler is replaceable; matching ignores the method', async () => {
  const mux = new PathRecorderMux('t');
  mux.notFoundHandler(() => new Response('custom', { status: 418 }));
  mux.handle('/m', named('m'));
  assert.deepEqual(await serve(mux, '/nope'), { status: 418, body: 'custom' });
  const r = await mux.serve(newRequestContext(new Request('https://x/m', { method: 'DELETE' })));
  assert.equal(await r.text(), 'm');
});
