// BuiltInAuthenticationOptions (kube-apiserver pkg/kubeapiserver/options/authentication.go and
// the generic ClientCert/RequestHeader options): the "Authentication" flags with upstream names
// and defaults, validation, and ApplyTo building kube-apiserver's authenticator:
//
//   AuthenticatedGroupAdder(union(requestheader, x509, bearer(cache(tokenUnion)), websocket(…)))
//   then unionFailOnError(…, anonymous) when anonymous is enabled,
//   tokenUnion = token file, service accounts, JWT issuers, webhook (cached).
//
// Upstream: pkg/kubeapiserver/authenticator/config.go. The client CA bundles are exposed in
// config.authentication.clientCA / requestHeaderClientCA for listeners that request certificates.

import type { Config } from '../config.ts';
import type { Flag, FlagSet } from './flags.ts';
import { FlagError } from './flags.ts';
import type { ApplyContext, OptionsGroup } from './options.ts';
import { readTextFile } from '../../util/filesystem.ts';
import { goQuote } from '../../util/go.ts';
import type { RequestAuthenticator, TokenAuthenticator } from '../../authentication/authenticator.ts';
import { AnonymousAuthenticator } from '../../authentication/anonymous.ts';
import { wrapAudienceAgnosticRequest, wrapAudienceAgnosticToken } from '../../authentication/audiences.ts';
import { BearerTokenAuthenticator, WebSocketProtocolAuthenticator } from '../../authentication/bearertoken.ts';
import { CachedTokenAuthenticator } from '../../authentication/cache.ts';
import { newTokenFileAuthenticator } from '../../authentication/tokenfile.ts';
import { AuthenticatedGroupAdder, UnionAuthenticator, UnionTokenAuthenticator } from '../../authentication/union.ts';
import { CertPool, X509Authenticator } from '../../authentication/x509.ts';
import { newSecureRequestHeaderAuthenticator, type RequestHeaderConfig } from '../../authentication/requestheader.ts';
import {
  parsePrivateKeyPEM,
  parsePublicKeysPEM,
  type PublicKeyEntry,
  type SigningKey,
} from '../../authentication/keys.ts';
import { ServiceAccountTokenAuthenticator } from '../../authentication/serviceaccount.ts';
import { installServiceAccounts } from '../../registry/core/serviceaccount-install.ts';
import { newOpenIDMetadata, openIDMetadataInstaller } from '../../authentication/openid.ts';
import {
  allowedSigningAlgorithms,
  JWTAuthenticator,
  type Fetch,
  type JWTAuthenticatorConfig,
} from '../../authentication/jwt.ts';
import {
  legacyOIDCConfig,
  parseAuthenticationConfiguration,
  type AuthenticationConfiguration,
} from '../../authentication/authentication-config.ts';
import { WebhookTokenAuthenticator } from '../../authentication/webhook.ts';
import { loadWebhookKubeconfig, type WebhookTLSConfig } from '../../util/webhook/kubeconfig.ts';

const minute = 60e9;

/** cliflag.MapStringStringNoSplit: repeated `key=value`, later keys win. */
function mapStringStringNoSplit(fs: FlagSet, name: string, usage: string): Flag<Record<string, string>> {
  return fs.add<Record<string, string>>({
    name,
    usage,
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
  /** After applyTo: the JWT authenticators (tests, metrics). */
  jwtAuthenticators: JWTAuthenticator[] = [];

  addFlags(fs: FlagSet): void {
    fs.section('Authentication');
    this.anonymousAuth = fs.bool(
      'anonymous-auth',
      true,
      'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.',
    );
    this.apiAudiences = fs.stringSlice(
      'api-audiences',
      [],
      'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.',
    );
    this.authenticationConfig = fs.string(
      'authentication-config',
      '',
      'File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. Note: This feature is in Alpha since v1.29.--feature-gate=StructuredAuthenticationConfiguration=true needs to be set for enabling this feature.This feature is mutually exclusive with the oidc-* flags.',
    );
    this.webhookCacheTTL = fs.duration(
      'authentication-token-webhook-cache-ttl',
      2 * minute,
      'The duration to cache responses from the webhook token authenticator.',
    );
    this.webhookConfigFile = fs.string(
      'authentication-token-webhook-config-file',
      '',
      'File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.',
    );
    this.webhookVersion = fs.string(
      'authentication-token-webhook-version',
      'v1beta1',
      'The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.',
    );
    this.clientCAFile = fs.string(
      'client-ca-file',
      '',
      'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.',
    );
    this.oidcCAFile = fs.string(
      'oidc-ca-file',
      '',
      "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.",
    );
    this.oidcClientID = fs.string(
      'oidc-client-id',
      '',
      'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.',
    );
    this.oidcGroupsClaim = fs.string(
      'oidc-groups-claim',
      '',
      'If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings. This flag is experimental, please see the authentication documentation for further details.',
    );
    this.oidcGroupsPrefix = fs.string(
      'oidc-groups-prefix',
      '',
      'If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.',
    );
    this.oidcIssuerURL = fs.string(
      'oidc-issuer-url',
      '',
      'The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).',
    );
    this.oidcRequiredClaim = mapStringStringNoSplit(
      fs,
      'oidc-required-claim',
      'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.',
    );
    this.oidcSigningAlgs = fs.stringSlice(
      'oidc-signing-algs',
      ['RS256'],
      "Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512. Values are defined by RFC 7518 https://tools.ietf.org/html/rfc7518#section-3.1.",
    );
    this.oidcUsernameClaim = fs.string(
      'oidc-username-claim',
      'sub',
      "The OpenID claim to use as the user name. Note that claims other than the default ('sub') is not guaranteed to be unique and immutable. This flag is experimental, please see the authentication documentation for further details.",
    );
    this.oidcUsernamePrefix = fs.string(
      'oidc-username-prefix',
      '',
      "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.",
    );
    this.requestHeaderAllowedNames = fs.stringSlice(
      'requestheader-allowed-names',
      [],
      'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.',
    );
    this.requestHeaderClientCAFile = fs.string(
      'requestheader-client-ca-file',
      '',
      'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.',
    );
    this.requestHeaderExtraHeadersPrefix = fs.stringSlice(
      'requestheader-extra-headers-prefix',
      [],
      'List of request header prefixes to inspect. X-Remote-Extra- is suggested.',
    );
    this.requestHeaderGroupHeaders = fs.stringSlice(
      'requestheader-group-headers',
      [],
      'List of request headers to inspect for groups. X-Remote-Group is suggested.',
    );
    this.requestHeaderUIDHeaders = fs.stringSlice(
      'requestheader-uid-headers',
      [],
      'List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.',
    );
    this.requestHeaderUsernameHeaders = fs.stringSlice(
      'requestheader-username-headers',
      [],
      'List of request headers to inspect for usernames. X-Remote-User is common.',
    );
    this.serviceAccountIssuer = fs.stringArray(
      'service-account-issuer',
      [],
      'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. If this option is not a valid URI per the OpenID Discovery 1.0 spec, the ServiceAccountIssuerDiscovery feature will remain disabled, even if the feature gate is set to true. It is highly recommended that this value comply with the OpenID spec: https://openid.net/specs/openid-connect-discovery-1_0.html. In practice, this means that service-account-issuer must be an https URL. It is also highly recommended that this URL be capable of serving OpenID discovery documents at {service-account-issuer}/.well-known/openid-configuration. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted.',
    );
    this.serviceAccountJWKSURI = fs.string(
      'service-account-jwks-uri',
      '',
      "Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. This flag is useful if the discovery docand key set are served to relying parties from a URL other than the API server's external (as auto-detected or overridden with external-hostname).",
    );
    this.serviceAccountKeyFile = fs.stringArray(
      'service-account-key-file',
      [],
      'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, --tls-private-key-file is used. Must be specified when --service-account-signing-key-file is provided',
    );
    this.serviceAccountLookup = fs.bool(
      'service-account-lookup',
      true,
      'If true, validate ServiceAccount tokens exist in etcd as part of authentication.',
    );
    this.serviceAccountExtendTokenExpiration = fs.bool(
      'service-account-extend-token-expiration',
      true,
      'Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.',
    );
    this.serviceAccountMaxTokenExpiration = fs.duration(
      'service-account-max-token-expiration',
      0,
      'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.',
    );
    this.serviceAccountSigningKeyFile = fs.string(
      'service-account-signing-key-file',
      '',
      'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key.',
    );
    this.tokenAuthFile = fs.string(
      'token-auth-file',
      '',
      'If set, the file that will be used to secure the secure port of the API server via token authentication.',
    );
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

  async applyTo(config: Config, ctx: ApplyContext): Promise<void> {
    const fs = ctx.fileSystem;
    const logger = ctx.logger;
    const read = (path: string) => readTextFile(fs, path);
    const tlsFetch = (tls: WebhookTLSConfig): Fetch | undefined => {
      const f = ctx.webhookFetch?.(tls);
      return f
        ? (input, init) =>
            f(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, init ?? {})
        : undefined;
    };

    // --- structured configuration (validated before anything is built)
    let structured: AuthenticationConfiguration | undefined;
    const issuers = this.serviceAccountIssuer.value;
    if (this.authenticationConfig.value) {
      const path = this.authenticationConfig.value;
      try {
        structured = parseAuthenticationConfiguration(await read(path), issuers);
      } catch (err) {
        throw new Error(
          `failed to load authentication configuration from file ${goQuote(path)}: ${(err as Error).message}`,
        );
      }
      if (structured.anonymous && this.anonymousAuth.changed) {
        throw new Error(
          'anonymous is configured in the authentication configuration file and --anonymous-auth flag is set; they are mutually exclusive',
        );
      }
    }

    const apiAudiences = this.apiAudiences.value.length ? [...this.apiAudiences.value] : [...issuers];
    config.authentication.apiAudiences = apiAudiences;

    const requestAuthenticators: RequestAuthenticator[] = [];
    const tokenAuthenticators: TokenAuthenticator[] = [];

    // --- front proxy (request header) first, then x509, then tokens (upstream order)
    if (this.requestHeaderClientCAFile.value) {
      const path = this.requestHeaderClientCAFile.value;
      const pem = await readCA(fs, path);
      const pool = { current: CertPool.fromPEM(pem, path) };
      this.watchCA(ctx, path, (p, text) => {
        pool.current = p;
        config.authentication.requestHeaderClientCA = text;
      });
      const rh: RequestHeaderConfig = {
        usernameHeaders: this.requestHeaderUsernameHeaders.value,
        uidHeaders: this.requestHeaderUIDHeaders.value,
        groupHeaders: this.requestHeaderGroupHeaders.value,
        extraHeaderPrefixes: this.requestHeaderExtraHeadersPrefix.value,
        allowedClientNames: this.requestHeaderAllowedNames.value,
      };
      config.authentication.requestHeaderClientCA = pem;
      config.authentication.requestHeaderConfig = rh;
      requestAuthenticators.push(
        wrapAudienceAgnosticRequest(
          apiAudiences,
          newSecureRequestHeaderAuthenticator(() => pool.current, rh),
        ),
      );
    }
    if (this.clientCAFile.value) {
      const path = this.clientCAFile.value;
      const pem = await readCA(fs, path);
      const pool = { current: CertPool.fromPEM(pem, path) };
      this.watchCA(ctx, path, (p, text) => {
        pool.current = p;
        config.authentication.clientCA = text;
      });
      config.authentication.clientCA = pem;
      requestAuthenticators.push(new X509Authenticator(() => pool.current));
    }

    // --- token authenticators, in kube-apiserver's order
    if (this.tokenAuthFile.value) {
      const path = this.tokenAuthFile.value;
      const tokens = await newTokenFileAuthenticator(await read(path), path, logger);
      tokenAuthenticators.push(wrapAudienceAgnosticToken(apiAudiences, tokens));
    }

    let saKeys: PublicKeyEntry[] = [];
    for (const path of this.serviceAccountKeyFile.value) {
      try {
        saKeys.push(...(await parsePublicKeysPEM(await read(path))));
      } catch (err) {
        throw new Error(`failed to parse key file ${goQuote(path)}: ${(err as Error).message}`);
      }
    }
    if (this.serviceAccountSigningKeyFile.value) {
      const path = this.serviceAccountSigningKeyFile.value;
      try {
        this.signingKey = await parsePrivateKeyPEM(await read(path));
      } catch (err) {
        throw new Error(`failed to parse service-account-issuer-key-file: ${(err as Error).message}`);
      }
      // Upstream requires the public half in --service-account-key-file; we add it when missing.
      if (!saKeys.some((k) => k.kid === this.signingKey!.kid)) {
        const { privateKey: _, ...pub } = this.signingKey;
        saKeys = [...saKeys, pub];
      }
    }
    // Service accounts from storage: lookup, TokenRequest, default accounts (src/registry/core/serviceaccount-install.ts).
    const lookup = installServiceAccounts(config, {
      lookup: this.serviceAccountLookup.value,
      ...(issuers[0] && this.signingKey ? { issuer: issuers[0], signingKey: this.signingKey } : {}),
      apiAudiences,
      maxExpirationSeconds: this.serviceAccountMaxTokenExpiration.value / 1e9,
      extendExpiration: this.serviceAccountExtendTokenExpiration.value,
    });
    if (issuers.length && saKeys.length) {
      tokenAuthenticators.push(
        new ServiceAccountTokenAuthenticator({ issuers, keys: saKeys, implicitAudiences: apiAudiences, lookup }),
      );
      // Built at New() time so that an external address set after the flags still counts.
      const jwksURI = this.serviceAccountJWKSURI.value;
      const keys = saKeys;
      config.routeInstallers.push((server) => {
        try {
          openIDMetadataInstaller(newOpenIDMetadata(issuers[0]!, jwksURI, server.config.externalAddress, keys))(server);
        } catch (err) {
          server.config.logger.warning(
            `Could not set up OpenID discovery for the service account issuer: ${(err as Error).message}`,
          );
        }
      });
    } else if (issuers.length) {
      logger.warning(
        '--service-account-issuer is set but no --service-account-key-file or --service-account-signing-key-file: service account tokens cannot be verified',
      );
    } else if (saKeys.length) {
      // Without an issuer only legacy secret-based tokens could use these keys, and those need storage.
      logger.warning(
        '--service-account-key-file is set without --service-account-issuer: legacy service account tokens are not supported, the keys are unused',
      );
    }

    const jwtConfigs: JWTAuthenticatorConfig[] = [...(structured?.jwt ?? [])];
    if (!structured && this.oidcIssuerURL.value) {
      jwtConfigs.push(
        legacyOIDCConfig({
          issuerURL: this.oidcIssuerURL.value,
          clientID: this.oidcClientID.value,
          caPEM: this.oidcCAFile.value ? await read(this.oidcCAFile.value) : undefined,
          usernameClaim: this.oidcUsernameClaim.value,
          usernamePrefix: this.oidcUsernamePrefix.value,
          groupsClaim: this.oidcGroupsClaim.value,
          groupsPrefix: this.oidcGroupsPrefix.value,
          requiredClaims: this.oidcRequiredClaim.value,
        }),
      );
    }
    const buildJWT = (configs: JWTAuthenticatorConfig[]): { list: JWTAuthenticator[]; auth: TokenAuthenticator } => {
      const list: JWTAuthenticator[] = [];
      for (const jc of configs) {
        const ca = jc.issuer.certificateAuthority;
        const fetchFn = ca ? tlsFetch({ caData: ca }) : undefined;
        if (ca && !fetchFn)
          logger.warning(
            `No TLS-capable fetch on this platform: the certificateAuthority of issuer ${goQuote(jc.issuer.url)} is ignored and the platform trust store is used`,
          );
        list.push(
          new JWTAuthenticator(jc, {
            algorithms: structured ? allowedSigningAlgorithms : this.oidcSigningAlgs.value,
            fetch: fetchFn,
          }),
        );
      }
      const wrapped = list.map((a) => wrapAudienceAgnosticToken(apiAudiences, a));
      return { list, auth: wrapped.length === 1 ? wrapped[0]! : new UnionTokenAuthenticator(wrapped) };
    };
    if (jwtConfigs.length || (structured && fs.watch)) {
      // The JWT issuers sit behind a swappable holder: --authentication-config is reloaded when
      // the file changes (upstream reloads it too); an invalid new file keeps the old issuers.
      const built = buildJWT(jwtConfigs);
      this.jwtAuthenticators = built.list;
      const holder = { current: built.auth };
      tokenAuthenticators.push({ authenticateToken: (token, auds) => holder.current.authenticateToken(token, auds) });
      if (structured && fs.watch) {
        const path = this.authenticationConfig.value;
        fs.watch(path, () => {
          read(path)
            .then((text) => {
              const next = parseAuthenticationConfiguration(text, issuers);
              const rebuilt = buildJWT(next.jwt);
              holder.current = rebuilt.auth;
              this.jwtAuthenticators = rebuilt.list;
              logger.info('Loaded new authentication configuration', { path, jwtIssuers: next.jwt.length });
            })
            .catch((err: Error) =>
              logger.error('Failed to reload authentication configuration, keeping the previous one', { path, err }),
            );
        });
      }
    }

    if (this.webhookConfigFile.value) {
      const client = await loadWebhookKubeconfig(fs, this.webhookConfigFile.value);
      const ttl = this.webhookCacheTTL.value / 1e6;
      const hook = new WebhookTokenAuthenticator({
        client,
        version: this.webhookVersion.value as 'v1' | 'v1beta1',
        implicitAudiences: apiAudiences,
        fetch: tlsFetch(client.tls),
      });
      tokenAuthenticators.push(
        new CachedTokenAuthenticator(hook, { successTTL: ttl, failureTTL: ttl, cacheErrors: false }),
      );
    }

    if (tokenAuthenticators.length) {
      let tokenAuth: TokenAuthenticator =
        tokenAuthenticators.length === 1 ? tokenAuthenticators[0]! : new UnionTokenAuthenticator(tokenAuthenticators);
      if (this.tokenSuccessCacheTTL > 0 || this.tokenFailureCacheTTL > 0) {
        tokenAuth = new CachedTokenAuthenticator(tokenAuth, {
          successTTL: this.tokenSuccessCacheTTL,
          failureTTL: this.tokenFailureCacheTTL,
          cacheErrors: true,
        });
      }
      requestAuthenticators.push(
        new BearerTokenAuthenticator(tokenAuth),
        new WebSocketProtocolAuthenticator(tokenAuth),
      );
    }

    const anonymousEnabled = structured?.anonymous ? structured.anonymous.enabled : this.anonymousAuth.value;
    const anonymous = new AnonymousAuthenticator({ paths: structured?.anonymous?.conditions.map((c) => c.path) });
    if (!requestAuthenticators.length) {
      if (anonymousEnabled) config.authentication.authenticator = anonymous;
      else logger.warning('Authentication is disabled');
      return;
    }
    const chain = new AuthenticatedGroupAdder(new UnionAuthenticator(requestAuthenticators));
    config.authentication.authenticator = anonymousEnabled ? new UnionAuthenticator([chain, anonymous], true) : chain;
  }

  /** Reloads a CA bundle when the file changes (dynamiccertificates' file watch); keeps the old one on errors. */
  private watchCA(ctx: ApplyContext, path: string, set: (pool: CertPool, text: string) => void): void {
    ctx.fileSystem.watch?.(path, () => {
      readTextFile(ctx.fileSystem, path)
        .then((text) => set(CertPool.fromPEM(text, path), text))
        .catch((err: Error) =>
          ctx.logger.error('Failed to reload client CA bundle, keeping the previous one', { path, err }),
        );
    });
  }
}

async function readCA(fs: ApplyContext['fileSystem'], path: string): Promise<string> {
  let text: string;
  try {
    text = await readTextFile(fs, path);
  } catch (err) {
    throw new Error(`unable to load client CA provider: ${(err as Error).message}`);
  }
  try {
    CertPool.fromPEM(text, path);
  } catch (err) {
    throw new Error(`unable to load client CA provider: error reading ${path}: ${(err as Error).message}`);
  }
  return text;
}
