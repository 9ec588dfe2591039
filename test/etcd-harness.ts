// A real etcd per test file: `startEtcd()` runs Debian's etcd-server binary on free loopback
// client and peer ports with its own temporary data directory, waits until it answers /health,
// and `stop()` ends it and removes the directory. `startEtcd({ tls: true })` serves the client
// port over TLS with client-certificate auth (a CA, a server and a client certificate generated
// here with @peculiar/x509).
//
// Without an `etcd` binary the cases are skipped with a message naming the package, except in CI
// (CI=true), where a missing etcd fails:
//
//   describe('over etcd', { skip: etcdSkip() }, () => { let etcd: EtcdServer; before(async () => (etcd = await startEtcd())); … });

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '../src/server/dynamiccertificates/x509.ts';

export const etcdPackageHint = "etcd not found on PATH: install Debian's etcd-server package (apt-get install etcd-server) to run the etcd cases";

let found: boolean | undefined;

/** Whether an `etcd` binary is on PATH. */
export function etcdAvailable(): boolean {
  if (found === undefined) found = spawnSync('etcd', ['--version'], { stdio: 'ignore' }).status === 0;
  return found;
}

/**
 * The `skip` option for etcd cases: false when etcd is installed or in CI (where startEtcd then
 * fails the case), else the message naming the Debian package.
 */
export function etcdSkip(): string | false {
  if (etcdAvailable()) return false;
  if (process.env.CI === 'true') return false;
  return etcdPackageHint;
}

export interface EtcdTLSFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
  /** PEM contents (for fetches built in the test). */
  ca: string;
  cert: string;
  key: string;
}

export interface EtcdServer {
  /** `http://127.0.0.1:<port>` (or https:// with TLS). */
  clientURL: string;
  dataDir: string;
  process: ChildProcess;
  /** Client certificate material when started with `tls: true`. */
  client?: EtcdTLSFiles;
  /** SIGSTOP / SIGCONT: etcd stops answering without closing connections. */
  pause(): void;
  resume(): void;
  /** Stops etcd (SIGTERM, then SIGKILL) without removing the data directory. */
  kill(): Promise<void>;
  /** Stops etcd and removes its data directory. */
  stop(): Promise<void>;
}

export interface StartEtcdOptions {
  tls?: boolean;
  /** Extra etcd flags. */
  args?: string[];
}

/** A port that was free a moment ago (bind 0, read, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startEtcd(opts: StartEtcdOptions = {}): Promise<EtcdServer> {
  if (!etcdAvailable()) throw new Error(etcdPackageHint);
  const dataDir = mkdtempSync(join(tmpdir(), 'edge-apiserver-etcd-'));
  let client: EtcdTLSFiles | undefined;
  const tlsArgs: string[] = [];
  if (opts.tls) {
    const pki = await generateTestPKI();
    const file = (name: string, pem: string) => {
      const p = join(dataDir, name);
      writeFileSync(p, pem, { mode: 0o600 });
      return p;
    };
    const caFile = file('ca.crt', pki.ca);
    tlsArgs.push(`--trusted-ca-file=${caFile}`, `--cert-file=${file('server.crt', pki.serverCert)}`, `--key-file=${file('server.key', pki.serverKey)}`, '--client-cert-auth');
    client = { caFile, certFile: file('client.crt', pki.clientCert), keyFile: file('client.key', pki.clientKey), ca: pki.ca, cert: pki.clientCert, key: pki.clientKey };
  }
  for (let attempt = 0; ; attempt++) {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const scheme = opts.tls ? 'https' : 'http';
    const clientURL = `${scheme}://127.0.0.1:${clientPort}`;
    const peerURL = `http://127.0.0.1:${peerPort}`;
    const child = spawn(
      'etcd',
      [
        '--name=test',
        `--data-dir=${join(dataDir, 'data')}`,
        `--listen-client-urls=${clientURL}`,
        `--advertise-client-urls=${clientURL}`,
        `--listen-peer-urls=${peerURL}`,
        `--initial-advertise-peer-urls=${peerURL}`,
        `--initial-cluster=test=${peerURL}`,
        '--initial-cluster-state=new',
        '--log-level=error',
        ...tlsArgs,
        ...(opts.args ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const healthy = await waitHealthy(clientURL, client, exited);
    if (healthy === true) return server(clientURL, dataDir, child, exited, client);
    child.kill('SIGKILL');
    await exited;
    // A port taken between freePort() and etcd's bind: try other ports.
    if (attempt < 2 && /address already in use/.test(stderr)) continue;
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`etcd did not become healthy (${healthy}): ${stderr.trim().split('\n').slice(-5).join('\n')}`);
  }
}

function server(clientURL: string, dataDir: string, child: ChildProcess, exited: Promise<number | null>, client?: EtcdTLSFiles): EtcdServer {
  let dead = false;
  const kill = async () => {
    if (dead) return;
    dead = true;
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  return {
    clientURL,
    dataDir,
    process: child,
    client,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    kill,
    stop: async () => {
      await kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function waitHealthy(url: string, tls: EtcdTLSFiles | undefined, exited: Promise<number | null>): Promise<true | string> {
  let done: string | undefined;
  void exited.then((code) => (done = `exited with ${code}`));
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (done) return done;
    try {
      const body = tls ? await httpsGet(url + '/health', tls) : await (await fetch(url + '/health', { signal: AbortSignal.timeout(1000) })).text();
      if (JSON.parse(body).health === 'true') return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return 'timed out after 20s';
}

async function httpsGet(url: string, tls: EtcdTLSFiles): Promise<string> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca: tls.ca, cert: tls.cert, key: tls.key, timeout: 1000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve(body)).on('error', reject);
    });
    req.on('error', reject).on('timeout', () => req.destroy(new Error('timeout')));
  });
}

const ec: EcKeyGenParams & EcdsaParams = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

function pkcs8PEM(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END PRIVATE KEY-----\n`;
}

/** A throwaway CA, a serving certificate for 127.0.0.1/localhost and a client certificate. */
export async function generateTestPKI(): Promise<{ ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string }> {
  const notBefore = new Date(Date.now() - 3600_000);
  const notAfter = new Date(Date.now() + 86400_000);
  const [caKeys, serverKeys, clientKeys] = (await Promise.all([0, 1, 2].map(() => crypto.subtle.generateKey(ec, true, ['sign', 'verify'])))) as CryptoKeyPair[];
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=edge-apiserver test etcd CA',
    notBefore,
    notAfter,
    keys: caKeys!,
    signingAlgorithm: ec,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true)],
  });
  const leaf = async (serial: string, cn: string, keys: CryptoKeyPair, usage: string[], san?: x509.JsonGeneralNames) =>
    x509.X509CertificateGenerator.create({
      serialNumber: serial,
      subject: `CN=${cn}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKeys!.privateKey,
      signingAlgorithm: ec,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension(usage),
        ...(san ? [new x509.SubjectAlternativeNameExtension(san)] : []),
      ],
    });
  // etcd's JSON gateway dials etcd's own gRPC port with the server certificate as its client
  // certificate (etcd 3.4 embed/serve.go), so with --client-cert-auth it needs clientAuth too.
  const serverCert = await leaf('02', '127.0.0.1', serverKeys!, [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth], [
    { type: 'ip', value: '127.0.0.1' },
    { type: 'dns', value: 'localhost' },
  ]);
  const clientCert = await leaf('03', 'kube-apiserver-etcd-client', clientKeys!, [x509.ExtendedKeyUsage.clientAuth]);
  return {
    ca: ca.toString('pem') + '\n',
    serverCert: serverCert.toString('pem') + '\n',
    serverKey: pkcs8PEM(await crypto.subtle.exportKey('pkcs8', serverKeys!.privateKey)),
    clientCert: clientCert.toString('pem') + '\n',
    clientKey: pkcs8PEM(await crypto.subtle.exportKey('pkcs8', clientKeys!.privateKey)),
  };
}
