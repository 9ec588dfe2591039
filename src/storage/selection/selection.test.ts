import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from './labels.ts';
import { parseFieldSelector } from './fields.ts';

test('label selectors: upstream syntax and matching', () => {
  const s = parseLabelSelector('env in (prod, qa),tier!=fe,!legacy,app,x>5,y<3, z = v');
  assert.equal(s.toString(), 'app,env in (prod,qa),!legacy,tier!=fe,x>5,y<3,z=v');
  assert.equal(s.matches({ app: '1', env: 'qa', tier: 'be', x: '6', y: '2', z: 'v' }), true);
  assert.equal(s.matches({ app: '1', env: 'dev', tier: 'be', x: '6', y: '2', z: 'v' }), false);
  assert.equal(s.matches({ app: '1', env: 'qa', tier: 'be', x: '6', y: '2', z: 'v', legacy: '' }), false);
  assert.equal(parseLabelSelector('a notin (b)').matches({}), true);
  assert.equal(parseLabelSelector('a==b').matches({ a: 'b' }), true);
  assert.equal(parseLabelSelector('').empty(), true);
  assert.equal(parseLabelSelector('a=').matches({ a: '' }), true);
  assert.equal(parseLabelSelector('example.com/a=b').requiresExactMatch('example.com/a'), 'b');
});

test('label selectors: upstream error messages', () => {
  const msg = (s: string) => {
    try {
      parseLabelSelector(s);
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };
  assert.equal(msg('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(msg('a in b'), "unable to parse requirement: found 'b' expected: '('");
  assert.equal(msg('a,'), "found '', expected: identifier after ','");
  assert.equal(msg('=a'), "found '=', expected: !, identifier, or 'end of string'");
  assert.equal(msg('a in (b'), "unable to parse requirement: found '', expected: ',' or ')'");
  assert.equal(
    msg('x>a'),
    `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
  );
  assert.match(msg('a=b c'), /^found 'c', expected: ',' or 'end of string'$/);
  assert.match(
    msg('-a=b'),
    /^unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of alphanumeric characters/,
  );
  assert.match(
    msg('a=-b'),
    /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "-b": a valid label must be an empty string/,
  );
});

test('field selectors: operators, escapes, errors', () => {
  const f = parseFieldSelector('metadata.name=a\\,b,status.phase!=Running');
  assert.equal(f.matches({ 'metadata.name': 'a,b', 'status.phase': 'Pending' }), true);
  assert.equal(f.matches({ 'metadata.name': 'a,b', 'status.phase': 'Running' }), false);
  assert.equal(f.requiresExactMatch('metadata.name'), 'a,b');
  assert.equal(f.toString(), 'metadata.name=a\\,b,status.phase!=Running');
  assert.equal(parseFieldSelector('a==b').matches({ a: 'b' }), true);
  assert.throws(() => parseFieldSelector('nonsense'), {
    message: "invalid selector: 'nonsense'; can't understand 'nonsense'",
  });
});
