// SecureServingOptions (k8s.io/apiserver/pkg/server/options/serving.go, serving_with_loopback.go)
// with kube-apiserver's defaults (pkg/kubeapiserver/options/serving.go): flags, Validate, and ApplyTo, which fills
// Config.secureServing with what a listener needs (bind address, certificate providers, TLS
// settings) and sets up the loopback certificate and token. Portable: it binds nothing; the
// Node adapter listens (adapters/node), edge runtimes ignore the listener part.

import type { Config } from '../config.ts';
import { FlagError, type FlagSet } from './flags.ts';
import type { ApplyContext, OptionsGroup } from './options.ts';
import { errorMessage } from '../../endpoints/responsewriters/status.ts';
import type { SecureServingInfo, TLSVersion } from '../secure-serving.ts';
import type { CertKeyContentProvider } from '../dynamiccertificates/content.ts';
import { generateSelfSignedKeyPairs } from '../dynamiccertificates/rsa-keys.ts';

export type { SecureServingInfo, TLSVersion };

// Certificate code loads only where TLS is served.
const loadCertCode = async () => {
  const [content, generate] = await Promise.all([
    import('../dynamiccertificates/content.ts'),
    import('../dynamiccertificates/generate.ts'),
  ]);
  return { ...content, ...generate };
};

/** cliflag.TLSVersion names → Node protocol names. */
export const tlsVersions: Record<string, TLSVersion> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export function tlsVersion(name: string): TLSVersion {
  if (name === '') return 'TLSv1.2';
  const v = tlsVersions[name];
  if (!v) throw new Error(`unknown tls version ${JSON.stringify(name)}`);
  return v;
}

/**
 * Go's cipher suite names (tls.CipherSuites() then tls.InsecureCipherSuites(), plus the two
 * legacy CHACHA20 aliases) → OpenSSL names. `null`: a TLS 1.3 suite, accepted but not configurable.
 */
const secureCipherSuites: Record<string, string | null> = {
  TLS_AES_128_GCM_SHA256: null,
  TLS_AES_256_GCM_SHA384: null,
  TLS_CHACHA20_POLY1305_SHA256: null,
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
};
const insecureCipherSuites: Record<string, string> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};
const legacyCipherSuites: Record<string, string> = {
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/** cliflag.TLSCipherSuites: Go names → OpenSSL names, with upstream's error and warnings. */
export function tlsCipherSuites(names: string[], warn?: (msg: string) => void): string[] {
  const out: string[] = [];
  for (const n of names) {
    if (n in secureCipherSuites || n in legacyCipherSuites) {
      const o = secureCipherSuites[n] ?? legacyCipherSuites[n];
      if (o) out.push(o);
      continue;
    }
    const insecure = insecureCipherSuites[n];
    if (!insecure) throw new Error(`Cipher suite ${n} not supported or doesn't exist`);
    warn?.(`Use of insecure cipher '${n}' detected.`);
    out.push(insecure);
  }
  return out;
}

/** One `--tls-sni-cert-key` value (cliflag.NamedCertKey). */
export interface NamedCertKey {
  certFile: string;
  keyFile: string;
  names: string[];
}

/** cliflag.NamedCertKey.Set. */
export function parseNamedCertKey(value: string): NamedCertKey {
  const cs = value.split(':');
  if (cs.length > 2)
    throw new Error(
      'expected comma separated certificate and key file paths, optionally followed by a colon separated list of names',
    );
  const keycert = cs[0]!.split(',').map((s) => s.trim());
  if (keycert.length !== 2) throw new Error('expected comma separated certificate and key file paths');
  let names: string[] = [];
  if (cs.length === 2) {
    names = cs[1]!.split(',').map((s) => s.trim());
    if (names.length === 1 && names[0] === '') throw new Error('empty names list is not allowed');
  }
  return { certFile: keycert[0]!, keyFile: keycert[1]!, names };
}

const cipherHelp = (): string =>
  'Comma-separated list of cipher suites for the server. If omitted, the default Go cipher suites will be used. \n' +
  `Preferred values: ${Object.keys(secureCipherSuites).sort().join(', ')}. \n` +
  `Insecure values: ${Object.keys(insecureCipherSuites).sort().join(', ')}.`;

/** SecureServingOptions with kube-apiserver's defaults (Required, 6443, /var/run/kubernetes, WithLoopback). */
export class SecureServingOptions implements OptionsGroup {
  bindAddress = '0.0.0.0';
  bindPort = 6443;
  bindNetwork: 'tcp' | 'tcp4' | 'tcp6' = 'tcp';
  /** Port 0 is rejected (kube-apiserver). */
  required = true;
  certDirectory = '/var/run/kubernetes';
  pairName = 'apiserver';
  certFile = '';
  keyFile = '';
  cipherSuites: string[] = [];
  minTLSVersion = '';
  sniCertKeys: NamedCertKey[] = [];
  http2MaxStreamsPerConnection = 0;
  disableHTTP2 = false;
  permitPortSharing = false;
  permitAddressSharing = false;
  /** WithLoopback: generate the loopback certificate and token. */
  loopback = true;
  /** kube-apiserver's extra SANs for the generated certificate. */
  alternateDNS = ['kubernetes.default.svc', 'kubernetes.default', 'kubernetes'];
  alternateIPs = ['10.0.0.1'];
  private flags: Record<string, { value: unknown }> = {};

  addFlags(fs: FlagSet): void {
    fs.section('Secure serving');
    const f = this.flags;
    f['bind-address'] = fs.ip('bind-address', this.bindAddress);
    f['cert-dir'] = fs.string('cert-dir', this.certDirectory);
    f['disable-http2-serving'] = fs.bool('disable-http2-serving', this.disableHTTP2);
    f['http2-max-streams-per-connection'] = fs.int(
      'http2-max-streams-per-connection',
      this.http2MaxStreamsPerConnection,
    );
    f['permit-address-sharing'] = fs.bool('permit-address-sharing', this.permitAddressSharing);
    f['permit-port-sharing'] = fs.bool('permit-port-sharing', this.permitPortSharing);
    f['secure-port'] = fs.int(
      'secure-port',
      this.bindPort,
      this.required
        ? 'The port on which to serve HTTPS with authentication and authorization. It cannot be switched off with 0.'
        : "The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS at all.",
    );
    f['tls-cert-file'] = fs.string('tls-cert-file', this.certFile);
    f['tls-cipher-suites'] = fs.stringSlice('tls-cipher-suites', this.cipherSuites, cipherHelp());
    f['tls-min-version'] = fs.string(
      'tls-min-version',
      this.minTLSVersion,
      `Minimum TLS version supported. Possible values: ${Object.keys(tlsVersions).join(', ')}`,
    );
    f['tls-private-key-file'] = fs.string('tls-private-key-file', this.keyFile);
    f['tls-sni-cert-key'] = fs.add<NamedCertKey[]>({
      name: 'tls-sni-cert-key',
      typeName: 'string',
      defaultValue: this.sniCertKeys,
      set: (raw, current, first) => {
        let nkc: NamedCertKey;
        try {
          nkc = parseNamedCertKey(raw);
        } catch (err) {
          throw new FlagError(errorMessage(err));
        }
        return first ? [nkc] : [...current, nkc];
      },
      formatDefault: () => '[]',
    });
  }

  /** Copies parsed flag values onto the fields (flags may be absent when used programmatically). */
  private sync(): void {
    const v = <T>(name: string, cur: T): T => (this.flags[name] ? (this.flags[name]!.value as T) : cur);
    this.bindAddress = v('bind-address', this.bindAddress);
    this.bindPort = v('secure-port', this.bindPort);
    this.certDirectory = v('cert-dir', this.certDirectory);
    this.disableHTTP2 = v('disable-http2-serving', this.disableHTTP2);
    this.http2MaxStreamsPerConnection = v('http2-max-streams-per-connection', this.http2MaxStreamsPerConnection);
    this.permitAddressSharing = v('permit-address-sharing', this.permitAddressSharing);
    this.permitPortSharing = v('permit-port-sharing', this.permitPortSharing);
    this.certFile = v('tls-cert-file', this.certFile);
    this.keyFile = v('tls-private-key-file', this.keyFile);
    this.cipherSuites = v('tls-cipher-suites', this.cipherSuites);
    this.minTLSVersion = v('tls-min-version', this.minTLSVersion);
    this.sniCertKeys = v('tls-sni-cert-key', this.sniCertKeys);
  }

  validate(): string[] {
    this.sync();
    const errors: string[] = [];
    const p = this.bindPort;
    // Upstream's `&&`/`||` precedence: a non-required port > 65535 gets the "cannot be turned off" text.
    if ((this.required && p < 1) || p > 65535) {
      errors.push(`--secure-port ${p} must be between 1 and 65535, inclusive. It cannot be turned off with 0`);
    } else if (p < 0 || p > 65535) {
      errors.push(`--secure-port ${p} must be between 0 and 65535, inclusive. 0 for turning off secure port`);
    }
    return errors;
  }

  /**
   * MaybeDefaultWithSelfSignedCerts + ApplyTo (+ WithLoopback). Certificates are loaded or
   * generated only when the platform serves TLS itself (`ctx.servesTLS`); edge runtimes get the
   * settings without paying for key generation.
   */
  async applyTo(config: Config, ctx: ApplyContext): Promise<void> {
    this.sync();
    if (this.bindPort <= 0) return;
    const logger = ctx.logger;
    const minTLSVersion = tlsVersion(this.minTLSVersion);
    const openSSLCipherSuites = tlsCipherSuites(this.cipherSuites, (m) => logger.warning(m));
    const info: SecureServingInfo = {
      bindAddress: this.bindAddress,
      bindPort: this.bindPort,
      bindNetwork: this.bindNetwork,
      sniCerts: [],
      minTLSVersion,
      cipherSuites: this.cipherSuites,
      openSSLCipherSuites,
      http2MaxStreamsPerConnection: this.http2MaxStreamsPerConnection > 0 ? this.http2MaxStreamsPerConnection : 100,
      disableHTTP2: this.disableHTTP2,
      permitPortSharing: this.permitPortSharing,
      permitAddressSharing: this.permitAddressSharing,
    };
    // The loopback bearer token, a fresh UUID each start (authentication puts it first).
    if (this.loopback) config.loopbackToken = crypto.randomUUID();
    config.secureServing = info;
    this.defaultAdvertiseAddress(config, ctx);
    // kube-apiserver's Complete: the external host defaults to the advertise address, logged
    // after the self-signed certificate is generated.
    const defaultedExternalHost = !config.externalAddress && config.publicAddress !== undefined;
    if (defaultedExternalHost) config.externalAddress = config.publicAddress!;
    const logExternalHost = () =>
      defaultedExternalHost && logger.info(`external host was not specified, using ${config.externalAddress}`);
    if (!ctx.servesTLS) return void logExternalHost();

    const fs = ctx.fileSystem;
    const reload = { logger };
    // The loopback keys (ECDSA P-256: internal only, made at every start) are generated off the
    // main thread while the certificate code loads.
    const loopbackKeys = this.loopback ? generateSelfSignedKeyPairs('ECDSA') : undefined;
    loopbackKeys?.catch(() => undefined); // awaited below; a failure surfaces there
    const { DynamicCertKeyPairContent, StaticCertKeyContent, generateSelfSignedCertKey } = await loadCertCode();
    const [serving, loopbackCert] = await Promise.all([
      this.servingCert(ctx, config.publicAddress ?? ''),
      loopbackKeys
        ? generateSelfSignedCertKey({
            host: loopbackServerName,
            maxAge: (3 * 365 + 1) * 24 * 60 * 60 * 1000,
            keys: loopbackKeys,
          })
        : undefined,
    ]);
    info.cert = serving;
    logExternalHost();
    if (loopbackCert) {
      info.loopback = { serverName: loopbackServerName, caPEM: loopbackCert.cert };
    }
    for (const nkc of this.sniCertKeys) {
      try {
        info.sniCerts.push(
          await DynamicCertKeyPairContent.create('sni-serving-cert', nkc.certFile, nkc.keyFile, fs, {
            ...reload,
            sniNames: nkc.names,
          }),
        );
      } catch (err) {
        throw new Error(`failed to load SNI cert and key: ${errorMessage(err)}`);
      }
    }
    // Prepended, so it beats a user SNI certificate claiming the same name.
    if (loopbackCert) {
      info.sniCerts.unshift(
        await StaticCertKeyContent.create('self-signed loopback', loopbackCert.cert, loopbackCert.key, [
          loopbackServerName,
        ]),
      );
    }
  }

  /**
   * ServerRunOptions.DefaultAdvertiseAddress: an unset or unspecified advertise address becomes
   * DefaultExternalAddress() = utilnet.ResolveBindAddress(bind address): the bind address, or the
   * host's default interface IP (ChooseHostInterface) when it is unspecified or loopback. The
   * platform finds that IP (`ctx.chooseHostInterface`, `ctx.hostIP`); without one (edge runtimes),
   * nothing is defaulted.
   */
  private defaultAdvertiseAddress(config: Config, ctx: ApplyContext): void {
    if (config.publicAddress && !isUnspecified(config.publicAddress)) return;
    if (!unspecifiedOrLoopback(this.bindAddress)) {
      config.publicAddress = this.bindAddress;
      return;
    }
    if (ctx.chooseHostInterface) {
      try {
        config.publicAddress = ctx.chooseHostInterface();
      } catch (err) {
        throw new Error(
          `Unable to find suitable network address.error='${errorMessage(err)}'. Try to set the AdvertiseAddress directly or provide a valid BindAddress to fix this.`,
        );
      }
    } else if (ctx.hostIP) {
      config.publicAddress = ctx.hostIP;
    }
  }

  /** The default serving certificate: explicit files, else reuse or generate in --cert-dir, else in memory. */
  private async servingCert(ctx: ApplyContext, advertised: string): Promise<CertKeyContentProvider> {
    const { DynamicCertKeyPairContent, StaticCertKeyContent, generateSelfSignedCertKey } = await loadCertCode();
    const fs = ctx.fileSystem;
    const logger = ctx.logger;
    let certFile = this.certFile;
    let keyFile = this.keyFile;
    if (!certFile && !keyFile) {
      const unspecified = this.bindAddress === '0.0.0.0' || this.bindAddress === '::' || this.bindAddress === '';
      // The advertise address; without one (no platform host IP) the bind address or localhost,
      // never an empty name.
      const host = advertised || (unspecified ? 'localhost' : this.bindAddress);
      const alternateDNS = [...this.alternateDNS];
      const alternateIPs = [...this.alternateIPs];
      if (unspecified) alternateDNS.push('localhost');
      else alternateIPs.push(this.bindAddress);
      if (this.certDirectory) {
        if (!this.pairName) throw new Error('PairName is required if CertDirectory is set');
        const dir = this.certDirectory.replace(/\/+$/, '') || '/';
        certFile = `${dir}/${this.pairName}.crt`;
        keyFile = `${dir}/${this.pairName}.key`;
        const [canReadCert, canReadKey] = await Promise.all([canRead(fs, certFile), canRead(fs, keyFile)]);
        if (canReadCert !== canReadKey) {
          throw new Error(
            `error reading ${canReadCert ? keyFile : certFile}, certificate and key must be supplied as a pair`,
          );
        }
        if (!canReadCert) {
          if (!fs.writeFile)
            throw new Error(
              `unable to generate self signed cert: cannot write ${certFile}: the file system is read-only`,
            );
          const pair = await generateSelfSignedCertKey({ host, alternateIPs, alternateDNS });
          await writeCertKey(fs, dir, certFile, keyFile, pair.cert, pair.key);
          logger.info(`Generated self-signed cert (${certFile}, ${keyFile})`);
        }
      } else {
        const pair = await generateSelfSignedCertKey({ host, alternateIPs, alternateDNS });
        logger.info('Generated self-signed cert in-memory');
        return StaticCertKeyContent.create('Generated self signed cert', pair.cert, pair.key);
      }
    }
    return DynamicCertKeyPairContent.create('serving-cert', certFile, keyFile, fs, { logger });
  }
}

export const loopbackServerName = 'apiserver-loopback-client';

/** utilnet.ResolveBindAddress's test: an unspecified or loopback bind address means "ask the host". */
function unspecifiedOrLoopback(ip: string): boolean {
  return (
    ip === '' || ip === '0.0.0.0' || ip === '::' || /^127\./.test(ip) || ip === '::1' || ip.startsWith('::ffff:127.')
  );
}

/** Whether an IP is unspecified (net.IP.IsUnspecified). */
function isUnspecified(ip: string): boolean {
  return ip === '0.0.0.0' || ip === '::' || /^[0:]+$/.test(ip);
}

async function canRead(fs: ApplyContext['fileSystem'], path: string): Promise<boolean> {
  try {
    await fs.readFile(path);
    return true;
  } catch {
    return false;
  }
}

/** cert.WriteCert/WriteKey: dir 0755, cert 0644, key 0600; nothing half-written left behind. */
async function writeCertKey(
  fs: ApplyContext['fileSystem'],
  dir: string,
  certFile: string,
  keyFile: string,
  cert: string,
  key: string,
): Promise<void> {
  const enc = new TextEncoder();
  try {
    await fs.mkdirAll?.(dir, 0o755);
    await fs.writeFile!(keyFile, enc.encode(key), 0o600);
    await fs.writeFile!(certFile, enc.encode(cert), 0o644);
  } catch (err) {
    await fs.remove?.(keyFile).catch(() => {});
    await fs.remove?.(certFile).catch(() => {});
    throw new Error(`unable to generate self signed cert: ${errorMessage(err)}`);
  }
}
