import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokenFile, readGoCSV, newTokenFileAuthenticator } from './tokenfile.ts';

test('token file: rows, groups, quotes, blank lines, CRLF, extra columns', async () => {
  const text =
    [
      'tok1,alice,1',
      '',
      'tok2,bob,2,"dev,ops"',
      'tok3,"carol ""c""",3,single,ignored',
      ' tok4,dave,4', // leading space is part of the token
      'tok5,eve,5,',
    ].join('\r\n') + '\r\n';
  const m = parseTokenFile(text, '/t.csv');
  assert.deepEqual(m.get('tok1'), { name: 'alice', uid: '1' });
  assert.deepEqual(m.get('tok2'), { name: 'bob', uid: '2', groups: ['dev', 'ops'] });
  assert.deepEqual(m.get('tok3'), { name: 'carol "c"', uid: '3', groups: ['single'] });
  assert.ok(m.has(' tok4'));
  assert.deepEqual(m.get('tok5')?.groups, ['']);
  const a = await newTokenFileAuthenticator(text, '/t.csv');
  assert.equal((await a.authenticateToken('tok2'))?.user.name, 'bob');
  assert.equal(await a.authenticateToken('tok4'), null);
});

test('token file: empty token skipped, duplicate later wins (warnings)', () => {
  const warnings: string[] = [];
  const logger = { enabled: () => true, info() {}, error() {}, warning: (m: string) => warnings.push(m) };
  const m = parseTokenFile(',nobody,0\ndup,first,1\ndup,second,2\n', '/t.csv', logger);
  assert.equal(m.get('dup')?.name, 'second');
  assert.equal(m.size, 1);
  assert.deepEqual(warnings, [
    "empty token has been found in token file '/t.csv', record number '1'",
    "duplicate token has been found in token file '/t.csv', record number '3'",
  ]);
});

test('token file errors carry file:line', () => {
  assert.throws(() => parseTokenFile('a,b,c\nonly,two\n', '/etc/t.csv'), {
    message: "/etc/t.csv:2: token file '/etc/t.csv' must have at least 3 columns (token, user name, user uid), found 2",
  });
  assert.throws(() => parseTokenFile('a,b,c\n\nto"k,u,1\n', '/t.csv'), {
    message: '/t.csv:3: parse error on line 3, column 3: bare " in non-quoted-field',
  });
  assert.throws(() => parseTokenFile('"tok" x,u,1\n', '/t.csv'), {
    message: '/t.csv:1: parse error on line 1, column 6: extraneous or missing " in quoted-field',
  });
  assert.throws(
    () => parseTokenFile('a,b,c\n"unterminated,u,1\n', '/t.csv'),
    /^Error: \/t\.csv:2: parse error on line 2, column \d+: extraneous or missing " in quoted-field$/,
  );
});

test('CSV: quoted field spanning lines keeps the start line', () => {
  const r = readGoCSV('"a\nb",c,d\nx,y,z\n');
  assert.deepEqual(r, [
    { fields: ['a\nb', 'c', 'd'], line: 1 },
    { fields: ['x', 'y', 'z'], line: 3 },
  ]);
  assert.deepEqual(readGoCSV('a,"",c'), [{ fields: ['a', '', 'c'], line: 1 }]);
});
