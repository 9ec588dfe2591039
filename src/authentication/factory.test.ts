import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthenticationOptions } from '../server/options/authentication.ts';
import { FlagSet } from '../server/options/flags.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';
import { discardLogger } from '../util/logger.ts';
import { newAuthenticator, type AuthenticatorConfig } from './factory.ts';
import { ctxFor } from './testing.ts';

function config(args: string[]): AuthenticatorConfig {
  const o = new AuthenticationOptions();
  const fs = new FlagSet('test');
  o.addFlags(fs);
  fs.parse(args);
  return o.toAuthenticatorConfig();
}

test('toAuthenticatorConfig: the flags as plain data (files by path, audiences defaulted to the issuers)', () => {
  const c = config([
    '--token-auth-file=/t.csv',
    '--client-ca-file=/ca.crt',
    '--requestheader-client-ca-file=/fp.crt',
    '--requestheader-username-headers=X-Remote-User',
    '--service-account-issuer=https://issuer.example',
    '--authentication-token-webhook-config-file=/hook.yaml',
    '--authentication-token-webhook-cache-ttl=30s',
    '--anonymous-auth=false',
  ]);
  assert.deepEqual(JSON.parse(JSON.stringify(c)), c, 'plain data: survives a JSON round trip');
  assert.equal(c.tokenAuthFile, '/t.csv');
  assert.equal(c.clientCAFile, '/ca.crt');
  assert.equal(c.requestHeader?.clientCAFile, '/fp.crt');
  assert.deepEqual(c.requestHeader?.usernameHeaders, ['X-Remote-User']);
  assert.deepEqual(c.apiAudiences, ['https://issuer.example']);
  assert.deepEqual(c.webhook, { configFile: '/hook.yaml', version: 'v1beta1', cacheTTL: 30_000 });
  assert.equal(c.anonymous, false);
  assert.equal(c.anonymousFlagSet, true);
  assert.equal(c.oidc, undefined);
  assert.equal(c.tokenSuccessCacheTTL, 10_000);
  const d = config([]);
  assert.equal(d.anonymous, true);
  assert.equal(d.anonymousFlagSet, false);
  assert.equal(d.requestHeader, undefined);
  assert.equal(d.webhook, undefined);
});

test('newAuthenticator: a hand-written config builds the token file authenticator behind the bearer token', async () => {
  const c: AuthenticatorConfig = {
    ...config([]),
    anonymous: false,
    tokenAuthFile: '/t.csv',
  };
  const fileSystem = new MemoryFileSystem({ '/t.csv': 'tok-1,alice,uid-1,"dev,ops"\n' });
  const built = await newAuthenticator(c, { fileSystem, logger: discardLogger });
  const r = await built.authenticator!.authenticateRequest(ctxFor({ authorization: 'Bearer tok-1' }));
  assert.equal(r?.user.name, 'alice');
  assert.deepEqual(r?.user.groups, ['dev', 'ops', 'system:authenticated']);
  assert.equal(await built.authenticator!.authenticateRequest(ctxFor({})), null, 'anonymous is off');
  // Nothing configured and anonymous off: no authenticator at all.
  const none = await newAuthenticator({ ...config([]), anonymous: false }, { fileSystem, logger: discardLogger });
  assert.equal(none.authenticator, undefined);
  await assert.rejects(
    newAuthenticator({ ...c, clientCAFile: '/missing.crt' }, { fileSystem, logger: discardLogger }),
    /^Error: unable to load client CA provider: open \/missing\.crt: no such file or directory$/,
  );
});
