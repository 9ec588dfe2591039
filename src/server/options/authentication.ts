// BuiltInAuthenticationOptions (kube-apiserver pkg/kubeapiserver/options/authentication.go and
// the generic ClientCert/RequestHeader options): the "Authentication" flags with upstream names
// and defaults, validation, ToAuthenticationConfig (plain data: toAuthenticatorConfig) and ApplyTo,
// which builds the authenticator with src/authentication/factory.ts (upstream:
// pkg/kubeapiserver/authenticator/config.go) and publishes what it built: the authenticator and
// the client CA bundles on config.authentication, and the watched CA files as
// config.secureServing.clientCA for a listener that requests client certificates.

import type { Config } from '../config.ts';
import type { ServiceAccountTokenGetter } from '../../authentication/serviceaccount.ts';
import { installServiceAccounts } from '../../registry/core/serviceaccount-install.ts';
import { defaultServiceAccountIssuer, ensureServiceAccountKey } from './serviceaccount-default.ts';
import type { Flag, FlagSet } from './flags.ts';
import { FlagError } from './flags.ts';
import type { ApplyContext, OptionsGroup } from './options.ts';
import { goQuote } from '../../util/go.ts';
import { newAuthenticator, type AuthenticatorConfig, type BuiltAuthenticator } from '../../authentication/factory.ts';
import type { SigningKey } from '../../authentication/keys.ts';
import { newOpenIDMetadata, openIDMetadataInstaller } from '../../authentication/openid.ts';
import { allowedSigningAlgorithms, type JWTAuthenticator } from '../../authentication/jwt.ts';
import { completeMaxTokenExpiration } from '../../registry/core/serviceaccount-token.ts';

const minute = 60e9;

/** cliflag.MapStringStringNoSplit: repeated `key=value`, later keys win. */
function mapStringStringNoSplit(fs: FlagSet, name: string): Flag<Record<string, string>> {
  return fs.add<Record<string, string>>({
    name,
    defaultValue: {},
    typeName: 'mapStringString',
    set: (raw, current, first) => {
      const eq = raw.indexOf('=');
      if (eq < 0) throw new FlagError(`malformed pair, expect string=string`);
      return { ...(first ? {} : current), [raw.slice(0, eq).trim()]: raw.slice(eq + 1).trim() };
    },
    formatDefault: () => '',
  });
}

export class AuthenticationOptions implements OptionsGroup {
  /** --cert-dir (SecureServingOptions), where the secure default's service-account key is kept. */
  private readonly certDir?: () => string;
  constructor(certDir?: () => string) {
    this.certDir = certDir;
  }

  anonymousAuth!: Flag<boolean>;
  apiAudiences!: Flag<string[]>;
  authenticationConfig!: Flag<string>;
  webhookCacheTTL!: Flag<number>;
  webhookConfigFile!: Flag<string>;
  webhookVersion!: Flag<string>;
  clientCAFile!: Flag<string>;
  oidcCAFile!: Flag<string>;
  oidcClientID!: Flag<string>;
  oidcGroupsClaim!: Flag<string>;
  oidcGroupsPrefix!: Flag<string>;
  oidcIssuerURL!: Flag<string>;
  oidcRequiredClaim!: Flag<Record<string, string>>;
  oidcSigningAlgs!: Flag<string[]>;
  oidcUsernameClaim!: Flag<string>;
  oidcUsernamePrefix!: Flag<string>;
  requestHeaderAllowedNames!: Flag<string[]>;
  requestHeaderClientCAFile!: Flag<string>;
  requestHeaderExtraHeadersPrefix!: Flag<string[]>;
  requestHeaderGroupHeaders!: Flag<string[]>;
  requestHeaderUIDHeaders!: Flag<string[]>;
  requestHeaderUsernameHeaders!: Flag<string[]>;
  serviceAccountIssuer!: Flag<string[]>;
  serviceAccountJWKSURI!: Flag<string>;
  serviceAccountKeyFile!: Flag<string[]>;
  serviceAccountLookup!: Flag<boolean>;
  serviceAccountMaxTokenExpiration!: Flag<number>;
  serviceAccountExtendTokenExpiration!: Flag<boolean>;
  serviceAccountSigningKeyFile!: Flag<string>;
  tokenAuthFile!: Flag<string>;

  /** kube-apiserver's token cache TTLs (no flags upstream). Milliseconds. */
  tokenSuccessCacheTTL = 10_000;
  tokenFailureCacheTTL = 0;

  /** After applyTo: the service-account signing key (for minting tokens in-process), if configured. */
  signingKey?: SigningKey;
  /** After applyTo: what the factory built. */
  built?: BuiltAuthenticator;
  /** After applyTo: the JWT authenticators, current after a reload (tests, metrics). */
  get jwtAuthenticators(): JWTAuthenticator[] {
    return this.built?.jwtAuthenticators ?? [];
  }

  addFlags(fs: FlagSet): void {
    fs.section('Authentication');
    this.anonymousAuth = fs.bool('anonymous-auth', true);
    this.apiAudiences = fs.stringSlice('api-audiences', []);
    this.authenticationConfig = fs.string('authentication-config', '');
    this.webhookCacheTTL = fs.duration('authentication-token-webhook-cache-ttl', 2 * minute);
    this.webhookConfigFile = fs.string('authentication-token-webhook-config-file', '');
    this.webhookVersion = fs.string('authentication-token-webhook-version', 'v1beta1');
    this.clientCAFile = fs.string('client-ca-file', '');
    this.oidcCAFile = fs.string('oidc-ca-file', '');
    this.oidcClientID = fs.string('oidc-client-id', '');
    this.oidcGroupsClaim = fs.string('oidc-groups-claim', '');
    this.oidcGroupsPrefix = fs.string('oidc-groups-prefix', '');
    this.oidcIssuerURL = fs.string('oidc-issuer-url', '');
    this.oidcRequiredClaim = mapStringStringNoSplit(fs, 'oidc-required-claim');
    this.oidcSigningAlgs = fs.stringSlice('oidc-signing-algs', ['RS256']);
    this.oidcUsernameClaim = fs.string('oidc-username-claim', 'sub');
    this.oidcUsernamePrefix = fs.string('oidc-username-prefix', '');
    this.requestHeaderAllowedNames = fs.stringSlice('requestheader-allowed-names', []);
    this.requestHeaderClientCAFile = fs.string('requestheader-client-ca-file', '');
    this.requestHeaderExtraHeadersPrefix = fs.stringSlice('requestheader-extra-headers-prefix', []);
    this.requestHeaderGroupHeaders = fs.stringSlice('requestheader-group-headers', []);
    this.requestHeaderUIDHeaders = fs.stringSlice('requestheader-uid-headers', []);
    this.requestHeaderUsernameHeaders = fs.stringSlice('requestheader-username-headers', []);
    this.serviceAccountIssuer = fs.stringArray('service-account-issuer', []);
    this.serviceAccountJWKSURI = fs.string('service-account-jwks-uri', '');
    this.serviceAccountKeyFile = fs.stringArray('service-account-key-file', []);
    this.serviceAccountLookup = fs.bool('service-account-lookup', true);
    this.serviceAccountExtendTokenExpiration = fs.bool('service-account-extend-token-expiration', true);
    this.serviceAccountMaxTokenExpiration = fs.duration('service-account-max-token-expiration', 0);
    this.serviceAccountSigningKeyFile = fs.string('service-account-signing-key-file', '');
    this.tokenAuthFile = fs.string('token-auth-file', '');
  }

  validate(): string[] {
    const errs: string[] = [];
    const oidcSet = this.oidcIssuerURL.value !== '' || this.oidcClientID.value !== '';
    if (this.authenticationConfig.value) {
      const oidcFlags = [
        this.oidcCAFile,
        this.oidcClientID,
        this.oidcGroupsClaim,
        this.oidcGroupsPrefix,
        this.oidcIssuerURL,
        this.oidcRequiredClaim,
        this.oidcSigningAlgs,
        this.oidcUsernameClaim,
        this.oidcUsernamePrefix,
      ];
      if (oidcFlags.some((f) => f.changed))
        errs.push('authentication-config file and oidc-* flags are mutually exclusive');
    } else if ((this.oidcIssuerURL.value !== '') !== (this.oidcClientID.value !== '')) {
      errs.push('oidc-issuer-url and oidc-client-id must be specified together');
    }
    if (oidcSet && this.oidcIssuerURL.value) {
      let u: URL | undefined;
      try {
        u = new URL(this.oidcIssuerURL.value);
      } catch {
        errs.push(`oidc-issuer-url: Invalid value: ${goQuote(this.oidcIssuerURL.value)}: url must be a valid URL`);
      }
      if (u && u.protocol !== 'https:')
        errs.push(`oidc-issuer-url: Invalid value: ${goQuote(this.oidcIssuerURL.value)}: URL scheme must be https`);
    }
    for (const alg of this.oidcSigningAlgs.value) {
      if (!allowedSigningAlgorithms.includes(alg))
        errs.push(
          `oidc-signing-algs: Unsupported value: ${goQuote(alg)}: supported values: ${allowedSigningAlgorithms.map(goQuote).join(', ')}`,
        );
    }
    const issuers = this.serviceAccountIssuer.value;
    const seen = new Set<string>();
    for (const iss of issuers) {
      if (iss === '') errs.push('service-account-issuer should not be an empty string');
      else if (iss.includes(':')) {
        try {
          new URL(iss);
        } catch {
          errs.push(`service-account-issuer ${goQuote(iss)} contained a ':' but was not a valid URL`);
        }
      }
      if (seen.has(iss)) errs.push(`service-account-issuer ${goQuote(iss)} is already specified`);
      seen.add(iss);
    }
    const jwks = this.serviceAccountJWKSURI.value;
    if (jwks) {
      try {
        const u = new URL(jwks);
        if (u.protocol !== 'https:') errs.push(`service-account-jwks-uri requires https scheme, parsed as: ${u.href}`);
      } catch (err) {
        errs.push(`service-account-jwks-uri must be a valid URL: ${(err as Error).message}`);
      }
    }
    if (this.serviceAccountSigningKeyFile.value && !issuers.length) {
      errs.push(
        '--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together',
      );
    }
    for (const [flag, values] of [
      ['requestheader-username-headers', this.requestHeaderUsernameHeaders.value],
      ['requestheader-uid-headers', this.requestHeaderUIDHeaders.value],
      ['requestheader-group-headers', this.requestHeaderGroupHeaders.value],
      ['requestheader-extra-headers-prefix', this.requestHeaderExtraHeadersPrefix.value],
      ['requestheader-allowed-names', this.requestHeaderAllowedNames.value],
    ] as const) {
      if (values.some((v) => v.trim() === '')) errs.push(`empty value in ${goQuote(flag)}`);
    }
    if (!['v1', 'v1beta1'].includes(this.webhookVersion.value)) {
      errs.push(
        `authentication-token-webhook-version: Unsupported value: ${goQuote(this.webhookVersion.value)}: supported values: "v1", "v1beta1"`,
      );
    }
    return errs;
  }

  /** ToAuthenticationConfig: the flags as an AuthenticatorConfig (plain data; files by path). */
  toAuthenticatorConfig(): AuthenticatorConfig {
    const issuers = [...this.serviceAccountIssuer.value];
    const c: AuthenticatorConfig = {
      anonymous: this.anonymousAuth.value,
      anonymousFlagSet: this.anonymousAuth.changed,
      apiAudiences: this.apiAudiences.value.length ? [...this.apiAudiences.value] : [...issuers],
      authenticationConfigFile: this.authenticationConfig.value,
      clientCAFile: this.clientCAFile.value,
      tokenAuthFile: this.tokenAuthFile.value,
      serviceAccountIssuers: issuers,
      serviceAccountKeyFiles: [...this.serviceAccountKeyFile.value],
      serviceAccountSigningKeyFile: this.serviceAccountSigningKeyFile.value,
      serviceAccountJWKSURI: this.serviceAccountJWKSURI.value,
      tokenSuccessCacheTTL: this.tokenSuccessCacheTTL,
      tokenFailureCacheTTL: this.tokenFailureCacheTTL,
    };
    if (this.requestHeaderClientCAFile.value) {
      c.requestHeader = {
        clientCAFile: this.requestHeaderClientCAFile.value,
        usernameHeaders: this.requestHeaderUsernameHeaders.value,
        uidHeaders: this.requestHeaderUIDHeaders.value,
        groupHeaders: this.requestHeaderGroupHeaders.value,
        extraHeaderPrefixes: this.requestHeaderExtraHeadersPrefix.value,
        allowedClientNames: this.requestHeaderAllowedNames.value,
      };
    }
    if (this.oidcIssuerURL.value) {
      c.oidc = {
        issuerURL: this.oidcIssuerURL.value,
        clientID: this.oidcClientID.value,
        caFile: this.oidcCAFile.value,
        usernameClaim: this.oidcUsernameClaim.value,
        usernamePrefix: this.oidcUsernamePrefix.value,
        groupsClaim: this.oidcGroupsClaim.value,
        groupsPrefix: this.oidcGroupsPrefix.value,
        requiredClaims: { ...this.oidcRequiredClaim.value },
        signingAlgs: [...this.oidcSigningAlgs.value],
      };
    }
    if (this.webhookConfigFile.value) {
      c.webhook = {
        configFile: this.webhookConfigFile.value,
        version: this.webhookVersion.value as 'v1' | 'v1beta1',
        cacheTTL: this.webhookCacheTTL.value / 1e6,
      };
    }
    return c;
  }

  /**
   * The secure default's service-account issuer (serviceaccount-default.ts): where this process
   * terminates TLS and no service-account flag is given, kubeadm's issuer and a key in --cert-dir.
   */
  private async defaultServiceAccountIssuer(c: AuthenticatorConfig, config: Config, ctx: ApplyContext): Promise<void> {
    const certDir = this.certDir?.() ?? '';
    const flags = [this.serviceAccountIssuer, this.serviceAccountKeyFile, this.serviceAccountSigningKeyFile];
    if (flags.some((f) => f.changed) || !ctx.servesTLS || !config.secureServing || !certDir) return;
    let path: string | undefined;
    try {
      path = await ensureServiceAccountKey(ctx.fileSystem, certDir);
    } catch (err) {
      ctx.logger.warning('Could not write the service account signing key; service account tokens are disabled', {
        certDir,
        err: err instanceof Error ? err.message : String(err),
      });
    }
    if (!path) return;
    c.serviceAccountIssuers = [defaultServiceAccountIssuer];
    c.serviceAccountKeyFiles = [path];
    c.serviceAccountSigningKeyFile = path;
    if (!this.apiAudiences.value.length) c.apiAudiences = [defaultServiceAccountIssuer];
    ctx.logger.info(
      `Secure default: service account tokens issued by ${defaultServiceAccountIssuer}, signed with ${path}`,
    );
  }

  async applyTo(config: Config, ctx: ApplyContext): Promise<void> {
    const maxExpirationSeconds = completeMaxTokenExpiration(
      this.serviceAccountMaxTokenExpiration.value,
      this.serviceAccountExtendTokenExpiration.value,
      (msg) => ctx.logger.warning(msg),
    );
    const authn = config.authentication;
    const c = this.toAuthenticatorConfig();
    await this.defaultServiceAccountIssuer(c, config, ctx);
    authn.apiAudiences = c.apiAudiences;
    let lookup: (() => ServiceAccountTokenGetter | undefined) | undefined;
    const built = await newAuthenticator(c, {
      fileSystem: ctx.fileSystem,
      logger: ctx.logger,
      webhookFetch: ctx.webhookFetch,
      serviceAccountLookup: () => lookup?.(),
      onCAReload: (which, pem) => {
        if (which === 'client') authn.clientCA = pem;
        else authn.requestHeaderClientCA = pem;
      },
    });
    this.built = built;
    this.signingKey = built.signingKey;
    // Service accounts from storage: lookup, TokenRequest, default accounts (src/registry/core/serviceaccount-install.ts).
    const issuer = c.serviceAccountIssuers[0];
    lookup = installServiceAccounts(config, {
      lookup: this.serviceAccountLookup.value,
      ...(issuer && built.signingKey ? { issuer, signingKey: built.signingKey } : {}),
      apiAudiences: c.apiAudiences,
      maxExpirationSeconds,
      extendExpiration: this.serviceAccountExtendTokenExpiration.value,
    });
    if (built.requestHeaderClientCA !== undefined) authn.requestHeaderClientCA = built.requestHeaderClientCA;
    if (built.requestHeaderConfig) authn.requestHeaderConfig = built.requestHeaderConfig;
    if (built.clientCA !== undefined) authn.clientCA = built.clientCA;
    if (built.authenticator) authn.authenticator = built.authenticator;
    const discovery = built.serviceAccountDiscovery;
    if (discovery) {
      // Built at New() time so that an external address set after the flags still counts.
      config.routeInstallers.push((server) => {
        try {
          openIDMetadataInstaller(
            newOpenIDMetadata(discovery.issuer, discovery.jwksURI, server.config.externalAddress, discovery.keys),
          )(server);
        } catch (err) {
          server.config.logger.warning(
            `Could not set up OpenID discovery for the service account issuer: ${(err as Error).message}`,
          );
        }
      });
    }
    // SecureServingInfo.ClientCA: the CA files, watched, for the handshake's certificate request
    // (only where this process terminates TLS; verification is per request, above).
    const caFiles = [c.clientCAFile, c.requestHeader?.clientCAFile ?? ''].filter((f) => f !== '');
    if (ctx.servesTLS && config.secureServing && caFiles.length) {
      // Loaded on demand, as the serving options load the certificate code (edge start-up).
      const { DynamicFileCAContent, UnionCAContent } = await import('../dynamiccertificates/content.ts');
      const reload = { logger: ctx.logger };
      config.secureServing.clientCA = new UnionCAContent(
        await Promise.all(
          caFiles.map((f) => DynamicFileCAContent.create('client-ca-bundle', f, ctx.fileSystem, reload)),
        ),
      );
    }
  }
}
