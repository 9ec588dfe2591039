import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newRequestContext } from '../endpoints/request/context.ts';
import { deleteRequestHeaders, headerNamesWithPrefix, headerValues } from './headers.ts';

/** A request whose headers cannot be changed, like an incoming request on Cloudflare Workers. */
class ImmutableRequest extends Request {
  override get headers(): Headers {
    const h = super.headers;
    return new Proxy(h, {
      get(t, p) {
        if (p === 'delete' || p === 'set' || p === 'append') {
          return () => {
            throw new TypeError("Can't modify immutable headers.");
          };
        }
        const v = Reflect.get(t, p, t);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
  }
}

test('deleteRequestHeaders rebuilds the request when its headers are immutable', async () => {
  const ctx = newRequestContext(
    new ImmutableRequest('https://h/x', {
      method: 'POST',
      body: 'payload',
      headers: { authorization: 'Bearer t', 'x-remote-extra-a': '1', accept: 'a/b' },
    }),
  );
  assert.throws(() => ctx.request.headers.delete('accept'));
  deleteRequestHeaders(ctx, ['authorization'], ['x-remote-extra-']);
  assert.equal(ctx.request.headers.get('authorization'), null);
  assert.equal(ctx.request.headers.get('x-remote-extra-a'), null);
  assert.equal(ctx.request.headers.get('accept'), 'a/b');
  assert.equal(ctx.request.method, 'POST');
  assert.equal(await ctx.request.text(), 'payload');
});

test('headerValues and prefixes: raw lines when known, Fetch Headers otherwise', () => {
  const raw = ['X-Remote-Group', 'a, b', 'x-remote-group', 'c', 'X-Remote-Extra-K', 'v'];
  const withRaw = newRequestContext(
    new Request('https://h/', {
      headers: [
        ['x-remote-group', 'a, b'],
        ['x-remote-group', 'c'],
      ],
    }),
    { rawHeaders: raw },
  );
  assert.deepEqual(headerValues(withRaw, 'X-REMOTE-GROUP'), ['a, b', 'c']);
  assert.deepEqual(headerNamesWithPrefix(withRaw, 'X-Remote-Extra-'), ['x-remote-extra-k']);
  const without = newRequestContext(
    new Request('https://h/', {
      headers: [
        ['x-remote-group', 'a, b'],
        ['x-remote-group', 'c'],
      ],
    }),
  );
  assert.deepEqual(headerValues(without, 'x-remote-group'), ['a, b, c']);
  assert.deepEqual(headerValues(without, 'missing'), []);
});
