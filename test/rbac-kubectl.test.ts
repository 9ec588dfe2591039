// RBAC and service accounts end to end over the embedded store (the suite: test/rbac-kubectl-suite.ts;
// over etcd: test/rbac-kubectl-etcd.test.ts), and a bad --service-account-max-token-expiration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlSkip, startCLIServer } from './kubectl-server.ts';
import { rbacSuite } from './rbac-kubectl-suite.ts';

rbacSuite({ name: 'the embedded store', etcd: false, skip: kubectlSkip });

test("--service-account-max-token-expiration under an hour stops the server with upstream's error", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-rbac-'));
  try {
    await assert.rejects(
      startCLIServer(join(dir, 'certs'), ['--storage-backend=memory', '--service-account-max-token-expiration=30m']),
      /server exited with 1: [^]*Error: the service-account-max-token-expiration must be between 1 hour and 2\^32 seconds/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
