import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APIServerMetrics } from './apiserver.ts';
import { instrumentAuthorizer } from './authorization.ts';
import { ServerOptions } from '../server/options/options.ts';
import { AuthorizationOptions } from '../server/options/authorization.ts';
import { newConfig } from '../server/config.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';
import { discardLogger } from '../util/logger.ts';
import type { Attributes, Decision } from '../authorization/authorizer.ts';

const attrs = { user: { name: 'alice' }, verb: 'get', isResourceRequest: false, path: '/x' } as unknown as Attributes;

test('apiserver_authorization_decisions_total counts terminal decisions per authorizer', async () => {
  const m = new APIServerMetrics();
  for (const decision of ['Allow', 'Deny', 'NoOpinion', 'Allow'] as Decision[]) {
    const a = instrumentAuthorizer({ authorize: async () => ({ decision, reason: '' }) }, 'Webhook', m);
    assert.equal((await a.authorize(attrs)).decision, decision);
  }
  const text = m.registry.expose();
  assert.match(
    text,
    /^# HELP apiserver_authorization_decisions_total \[ALPHA\] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision\.$/m,
  );
  assert.match(
    text,
    /^apiserver_authorization_decisions_total\{decision="allowed",name="webhook",type="Webhook"\} 2$/m,
  );
  assert.match(text, /^apiserver_authorization_decisions_total\{decision="denied",name="webhook",type="Webhook"\} 1$/m);
});

test('--authorization-mode authorizers are instrumented', async () => {
  const opts = new ServerOptions([new AuthorizationOptions()]);
  opts.parse(['--authorization-mode=AlwaysDeny,AlwaysAllow']);
  const config = newConfig();
  await opts.applyTo(config, { fileSystem: new MemoryFileSystem(), logger: discardLogger });
  await config.authorization.authorizer!.authorize(attrs);
  // AlwaysDeny has no opinion (upstream), so AlwaysAllow makes the terminal decision.
  const text = config.metrics.registry.expose();
  assert.match(
    text,
    /^apiserver_authorization_decisions_total\{decision="allowed",name="alwaysallow",type="AlwaysAllow"\} 1$/m,
  );
  assert.doesNotMatch(text, /type="AlwaysDeny"/);
});
