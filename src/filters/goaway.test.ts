import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withProbabilisticGoaway } from './goaway.ts';
import { recorder, testContext } from './testing.ts';

test('WithProbabilisticGoaway: HTTP/2 only, with the configured chance', async () => {
  let goaways = 0;
  const transport = { protocol: 'h2', goaway: () => goaways++ };
  const values = [0.001, 0.5, 0.0199];
  const h = withProbabilisticGoaway(recorder(), { goawayChance: 0.02 }, () => values.shift()!);
  for (let i = 0; i < 3; i++) assert.equal((await h(testContext('/', { transport }))).status, 200);
  assert.equal(goaways, 2);
  const h1 = withProbabilisticGoaway(recorder(), { goawayChance: 0.02 }, () => 0);
  await h1(testContext('/', { transport: { protocol: 'http/1.1', goaway: () => goaways++ } }));
  assert.equal(goaways, 2);
});

test('WithProbabilisticGoaway: absent at chance 0', () => {
  const next = recorder();
  assert.equal(withProbabilisticGoaway(next, { goawayChance: 0 }), next);
});
