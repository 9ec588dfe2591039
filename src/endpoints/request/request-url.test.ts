import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestURL } from './request-url.ts';

const members = ['pathname', 'search', 'href', 'host', 'hostname', 'port', 'protocol', 'origin', 'hash'] as const;

/** Whether the string was cut (no URL parsed yet) rather than handed to URL. */
const cut = (u: URL) => Object.getPrototypeOf(u) !== URL.prototype;

function assertSameAsURL(href: string): boolean {
  let want: URL;
  try {
    want = new URL(href);
  } catch {
    // These refusals hold a character the cut does not take: they go to URL, which throws the same.
    assert.throws(() => parseRequestURL(href), TypeError, href);
    return false;
  }
  const got = parseRequestURL(href);
  const wasCut = cut(got);
  assert.ok(got instanceof URL);
  for (const k of members) assert.equal(got[k], want[k], `${href}: ${k}`);
  assert.equal(String(got), want.href);
  assert.equal(JSON.stringify({ u: got }), JSON.stringify({ u: want }));
  assert.deepEqual([...got.searchParams], [...want.searchParams]);
  return wasCut;
}

test('the usual request targets are cut from the string', () => {
  for (const href of [
    'https://127.0.0.1:6443/api/v1/namespaces/default/configmaps/cm-0',
    'https://127.0.0.1:6443/apis/coordination.k8s.io/v1/leases?labelSelector=a%3Db&limit=500',
    'https://[::1]:6443/readyz?verbose',
  ]) {
    const u = parseRequestURL(href);
    assert.ok(cut(u), href);
    assert.equal(u.pathname + u.search, href.slice(href.indexOf('/', 8)));
    assert.equal(cut(u), true, 'reading pathname and search parses nothing');
  }
});

test('pathname, search and every other member are what URL makes of the string', () => {
  for (const href of [
    'https://127.0.0.1:6443/api/v1/namespaces/default/configmaps/cm-0',
    'https://127.0.0.1:6443/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=12',
    'https://127.0.0.1:6443/healthz?',
    'https://LOCALHOST:443/x?a=b',
    'https://[::1]:6443/version',
    'http://example.com/a%2Fb/%zz?x=%41',
    // Whatever URL encodes, resolves or ends differently is left to it.
    'https://h/a b?c d',
    'https://h/a"b?c"d',
    "https://h/a'b?c'd",
    'https://h/a<b>?c<d>',
    'https://h/a`b{c}d?e`f{g}',
    'https://h/a\\b?c\\d',
    'https://h/a/./b',
    'https://h/a/../b',
    'https://h/a/%2e%2E/b',
    'https://h/a/%2E/b',
    'https://h/.well-known/x',
    'https://h/a#frag',
    'https://h/a?b#frag',
    'https://h/é?ü',
    'https://h/a\tb',
    'https://user:pw@h/a',
    'https://h',
    'https:///x/y',
    'https:////x',
    'https://h?x',
    'https://h:0443/a',
    'https://h\r/a',
    'https://h/a?q=\u0000',
    'HTTPS://h/a',
    'wss://h/a',
  ])
    assertSameAsURL(href);
});

test('random request targets: the same pathname and search as URL', () => {
  const authorities = ['127.0.0.1:6443', '127.0.0.1:6443', '[::1]:443', 'Example.COM', 'a@b', 'h%41', ''];
  const alphabet = 'aZ09/?.%2eE#&=+;:@!$\'"<>\\`{}|^~[] \t\u007f\u00e9-_';
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  let cuts = 0;
  for (let i = 0; i < 5000; i++) {
    let path = '/';
    for (let n = rnd(12); n > 0; n--) path += alphabet[rnd(alphabet.length)];
    const authority = authorities[rnd(authorities.length)];
    if (assertSameAsURL(`https://${authority}${path}`)) cuts++;
  }
  assert.ok(cuts > 500 && cuts < 4500, `both ways taken (${cuts} of 5000 cut)`);
});

test('a write goes to the parsed URL, which answers from then on', () => {
  const u = parseRequestURL('https://h/a?b=1');
  u.pathname = '/c d';
  u.searchParams.set('e', '2');
  assert.equal(u.pathname, '/c%20d');
  assert.equal(u.search, '?b=1&e=2');
  assert.equal(u.href, 'https://h/c%20d?b=1&e=2');
});
