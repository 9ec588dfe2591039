// The authenticator factory (kube-apiserver pkg/kubeapiserver/authenticator/config.go): a plain
// AuthenticatorConfig (built by AuthenticationOptions.toAuthenticatorConfig, or by hand) → the
// request authenticator kube-apiserver builds:
//
//   AuthenticatedGroupAdder(union(requestheader, x509, bearer(cache(tokenUnion)), websocket(…)))
//   then unionFailOnError(…, anonymous) when anonymous is enabled,
//   tokenUnion = token file, service accounts, JWT issuers, webhook (cached).
//
// The config names files; the factory reads them through the platform's FileSystem, watches the
// CA bundles and --authentication-config, and reports what it loaded.

import { readTextFile, type FileSystem } from '../util/filesystem.ts';
import { goQuote } from '../util/go.ts';
import type { Logger } from '../util/logger.ts';
import type { WebhookFetchFactory } from '../util/webhook/client.ts';
import { loadWebhookKubeconfig, type WebhookTLSConfig } from '../util/webhook/kubeconfig.ts';
import { AnonymousAuthenticator } from './anonymous.ts';
import { wrapAudienceAgnosticRequest, wrapAudienceAgnosticToken } from './audiences.ts';
import {
  legacyOIDCConfig,
  parseAuthenticationConfiguration,
  type AuthenticationConfiguration,
} from './authentication-config.ts';
import type { RequestAuthenticator, TokenAuthenticator } from './authenticator.ts';
import { BearerTokenAuthenticator, WebSocketProtocolAuthenticator } from './bearertoken.ts';
import { CachedTokenAuthenticator } from './cache.ts';
import { allowedSigningAlgorithms, JWTAuthenticator, type Fetch, type JWTAuthenticatorConfig } from './jwt.ts';
import { parsePrivateKeyPEM, parsePublicKeysPEM, type PublicKeyEntry, type SigningKey } from './keys.ts';
import { newSecureRequestHeaderAuthenticator, type RequestHeaderConfig } from './requestheader.ts';
import { ServiceAccountTokenAuthenticator, type ServiceAccountTokenGetter } from './serviceaccount.ts';
import { newTokenFileAuthenticator } from './tokenfile.ts';
import { WebhookTokenAuthenticator } from './webhook.ts';
import { AuthenticatedGroupAdder, UnionAuthenticator, UnionTokenAuthenticator } from './union.ts';
import { CertPool, X509Authenticator } from './x509.ts';

/** The legacy `--oidc-*` flags (one issuer). */
export interface OIDCConfig {
  issuerURL: string;
  clientID: string;
  /** `--oidc-ca-file`; empty: the platform trust store. */
  caFile: string;
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  requiredClaims: Record<string, string>;
  signingAlgs: string[];
}

/** authenticator.Config: what to build, as plain data (files by path). */
export interface AuthenticatorConfig {
  /** `--anonymous-auth`. */
  anonymous: boolean;
  /** Whether `--anonymous-auth` was given (it excludes `anonymous` in the structured configuration). */
  anonymousFlagSet: boolean;
  /** `--api-audiences`, defaulted to the service-account issuers. */
  apiAudiences: string[];
  /** `--authentication-config`; empty: none. */
  authenticationConfigFile: string;
  /** `--client-ca-file`; empty: no x509 authentication. */
  clientCAFile: string;
  /** `--requestheader-*`; undefined without `--requestheader-client-ca-file`. */
  requestHeader?: RequestHeaderConfig & { clientCAFile: string };
  /** `--token-auth-file`; empty: none. */
  tokenAuthFile: string;
  /** `--service-account-issuer` (the first signs). */
  serviceAccountIssuers: string[];
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile: string;
  serviceAccountJWKSURI: string;
  /** `--oidc-*`; undefined when `--oidc-issuer-url` is not given. */
  oidc?: OIDCConfig;
  /** `--authentication-token-webhook-*`; undefined without a config file. */
  webhook?: { configFile: string; version: 'v1' | 'v1beta1'; cacheTTL: number };
  /** The token cache in front of every token authenticator (ms; no flags upstream). */
  tokenSuccessCacheTTL: number;
  tokenFailureCacheTTL: number;
}

/** What the factory uses besides the config (the platform's services). */
export interface AuthenticatorDeps {
  fileSystem: FileSystem;
  logger: Logger;
  /** A fetch that trusts a CA bundle (OIDC certificateAuthority, webhook kubeconfigs). */
  webhookFetch?: WebhookFetchFactory;
  /** Called with the new bundle when a watched client CA file changes. */
  onCAReload?: (which: 'client' | 'requestheader', pem: string) => void;
  /** `--service-account-lookup`: the getter service-account tokens are checked with (storage comes later). */
  serviceAccountLookup?: () => ServiceAccountTokenGetter | undefined;
}

/** What the factory built and loaded. */
export interface BuiltAuthenticator {
  /** Undefined when nothing authenticates (no authenticator and anonymous disabled). */
  authenticator?: RequestAuthenticator;
  /** The API audiences the authenticators accept. */
  apiAudiences: string[];
  /** The client CA bundles as loaded (PEM), for listeners that request client certificates. */
  clientCA?: string;
  requestHeaderClientCA?: string;
  requestHeaderConfig?: RequestHeaderConfig;
  /** The service-account signing key, if configured (minting tokens in-process). */
  signingKey?: SigningKey;
  /** The JWT authenticators, current after an `--authentication-config` reload. */
  jwtAuthenticators: JWTAuthenticator[];
  /** The service-account issuer's discovery data (/.well-known/openid-configuration). */
  serviceAccountDiscovery?: { issuer: string; jwksURI: string; keys: PublicKeyEntry[] };
}

/** Builds the authenticator from its config; throws upstream's start-up errors. */
export async function newAuthenticator(c: AuthenticatorConfig, deps: AuthenticatorDeps): Promise<BuiltAuthenticator> {
  const { fileSystem: fs, logger } = deps;
  const read = (path: string) => readTextFile(fs, path);
  const tlsFetch = (tls: WebhookTLSConfig): Fetch | undefined => {
    const f = deps.webhookFetch?.(tls);
    return f
      ? (input, init) =>
          f(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, init ?? {})
      : undefined;
  };

  // --- structured configuration (validated before anything is built)
  let structured: AuthenticationConfiguration | undefined;
  const issuers = c.serviceAccountIssuers;
  if (c.authenticationConfigFile) {
    const path = c.authenticationConfigFile;
    try {
      structured = parseAuthenticationConfiguration(await read(path), issuers);
    } catch (err) {
      throw new Error(
        `failed to load authentication configuration from file ${goQuote(path)}: ${(err as Error).message}`,
      );
    }
    if (structured.anonymous && c.anonymousFlagSet) {
      throw new Error(
        'anonymous is configured in the authentication configuration file and --anonymous-auth flag is set; they are mutually exclusive',
      );
    }
  }

  const apiAudiences = [...c.apiAudiences];
  const out: BuiltAuthenticator = { apiAudiences, jwtAuthenticators: [] };
  const requestAuthenticators: RequestAuthenticator[] = [];
  const tokenAuthenticators: TokenAuthenticator[] = [];

  // --- front proxy (request header) first, then x509, then tokens (upstream order)
  if (c.requestHeader) {
    const { clientCAFile: path, ...rh } = c.requestHeader;
    const pem = await readCA(fs, path);
    const pool = { current: CertPool.fromPEM(pem, path) };
    watchCA(deps, path, (p, text) => {
      pool.current = p;
      deps.onCAReload?.('requestheader', text);
    });
    out.requestHeaderClientCA = pem;
    out.requestHeaderConfig = rh;
    requestAuthenticators.push(
      wrapAudienceAgnosticRequest(
        apiAudiences,
        newSecureRequestHeaderAuthenticator(() => pool.current, rh),
      ),
    );
  }
  if (c.clientCAFile) {
    const path = c.clientCAFile;
    const pem = await readCA(fs, path);
    const pool = { current: CertPool.fromPEM(pem, path) };
    watchCA(deps, path, (p, text) => {
      pool.current = p;
      deps.onCAReload?.('client', text);
    });
    out.clientCA = pem;
    requestAuthenticators.push(new X509Authenticator(() => pool.current));
  }

  // --- token authenticators, in kube-apiserver's order
  if (c.tokenAuthFile) {
    const path = c.tokenAuthFile;
    const tokens = await newTokenFileAuthenticator(await read(path), path, logger);
    tokenAuthenticators.push(wrapAudienceAgnosticToken(apiAudiences, tokens));
  }

  let saKeys: PublicKeyEntry[] = [];
  for (const path of c.serviceAccountKeyFiles) {
    try {
      saKeys.push(...(await parsePublicKeysPEM(await read(path))));
    } catch (err) {
      throw new Error(`failed to parse key file ${goQuote(path)}: ${(err as Error).message}`);
    }
  }
  if (c.serviceAccountSigningKeyFile) {
    let signingKey: SigningKey;
    try {
      signingKey = await parsePrivateKeyPEM(await read(c.serviceAccountSigningKeyFile));
    } catch (err) {
      throw new Error(`failed to parse service-account-issuer-key-file: ${(err as Error).message}`);
    }
    out.signingKey = signingKey;
    // Upstream requires the public half in --service-account-key-file; we add it when missing.
    if (!saKeys.some((k) => k.kid === signingKey.kid)) {
      const { privateKey: _, ...pub } = signingKey;
      saKeys = [...saKeys, pub];
    }
  }
  if (issuers.length && saKeys.length) {
    tokenAuthenticators.push(
      new ServiceAccountTokenAuthenticator({
        issuers,
        keys: saKeys,
        implicitAudiences: apiAudiences,
        lookup: deps.serviceAccountLookup,
      }),
    );
    out.serviceAccountDiscovery = { issuer: issuers[0]!, jwksURI: c.serviceAccountJWKSURI, keys: saKeys };
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
  if (!structured && c.oidc) {
    const o = c.oidc;
    jwtConfigs.push(
      legacyOIDCConfig({
        issuerURL: o.issuerURL,
        clientID: o.clientID,
        caPEM: o.caFile ? await read(o.caFile) : undefined,
        usernameClaim: o.usernameClaim,
        usernamePrefix: o.usernamePrefix,
        groupsClaim: o.groupsClaim,
        groupsPrefix: o.groupsPrefix,
        requiredClaims: o.requiredClaims,
      }),
    );
  }
  const algorithms = structured ? allowedSigningAlgorithms : (c.oidc?.signingAlgs ?? ['RS256']);
  const buildJWT = (configs: JWTAuthenticatorConfig[]): { list: JWTAuthenticator[]; auth: TokenAuthenticator } => {
    const list: JWTAuthenticator[] = [];
    for (const jc of configs) {
      const ca = jc.issuer.certificateAuthority;
      const fetchFn = ca ? tlsFetch({ caData: ca }) : undefined;
      if (ca && !fetchFn)
        logger.warning(
          `No TLS-capable fetch on this platform: the certificateAuthority of issuer ${goQuote(jc.issuer.url)} is ignored and the platform trust store is used`,
        );
      list.push(new JWTAuthenticator(jc, { algorithms, fetch: fetchFn }));
    }
    const wrapped = list.map((a) => wrapAudienceAgnosticToken(apiAudiences, a));
    return { list, auth: wrapped.length === 1 ? wrapped[0]! : new UnionTokenAuthenticator(wrapped) };
  };
  if (jwtConfigs.length || (structured && fs.watch)) {
    // The JWT issuers sit behind a swappable holder: --authentication-config is reloaded when
    // the file changes (upstream reloads it too); an invalid new file keeps the old issuers.
    const built = buildJWT(jwtConfigs);
    out.jwtAuthenticators = built.list;
    const holder = { current: built.auth };
    tokenAuthenticators.push({ authenticateToken: (token, auds) => holder.current.authenticateToken(token, auds) });
    if (structured && fs.watch) {
      const path = c.authenticationConfigFile;
      fs.watch(path, () => {
        read(path)
          .then((text) => {
            const next = parseAuthenticationConfiguration(text, issuers);
            const rebuilt = buildJWT(next.jwt);
            holder.current = rebuilt.auth;
            out.jwtAuthenticators = rebuilt.list;
            logger.info('Loaded new authentication configuration', { path, jwtIssuers: next.jwt.length });
          })
          .catch((err: Error) =>
            logger.error('Failed to reload authentication configuration, keeping the previous one', { path, err }),
          );
      });
    }
  }

  if (c.webhook) {
    const client = await loadWebhookKubeconfig(fs, c.webhook.configFile);
    const ttl = c.webhook.cacheTTL;
    const hook = new WebhookTokenAuthenticator({
      client,
      version: c.webhook.version,
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
    if (c.tokenSuccessCacheTTL > 0 || c.tokenFailureCacheTTL > 0) {
      tokenAuth = new CachedTokenAuthenticator(tokenAuth, {
        successTTL: c.tokenSuccessCacheTTL,
        failureTTL: c.tokenFailureCacheTTL,
        cacheErrors: true,
      });
    }
    requestAuthenticators.push(new BearerTokenAuthenticator(tokenAuth), new WebSocketProtocolAuthenticator(tokenAuth));
  }

  const anonymousEnabled = structured?.anonymous ? structured.anonymous.enabled : c.anonymous;
  const anonymous = new AnonymousAuthenticator({ paths: structured?.anonymous?.conditions.map((x) => x.path) });
  if (!requestAuthenticators.length) {
    if (anonymousEnabled) out.authenticator = anonymous;
    else logger.warning('Authentication is disabled');
    return out;
  }
  const chain = new AuthenticatedGroupAdder(new UnionAuthenticator(requestAuthenticators));
  out.authenticator = anonymousEnabled ? new UnionAuthenticator([chain, anonymous], true) : chain;
  return out;
}

/** Reloads a CA bundle when the file changes (dynamiccertificates' file watch); keeps the old one on errors. */
function watchCA(deps: AuthenticatorDeps, path: string, set: (pool: CertPool, text: string) => void): void {
  deps.fileSystem.watch?.(path, () => {
    readTextFile(deps.fileSystem, path)
      .then((text) => set(CertPool.fromPEM(text, path), text))
      .catch((err: Error) =>
        deps.logger.error('Failed to reload client CA bundle, keeping the previous one', { path, err }),
      );
  });
}

async function readCA(fs: FileSystem, path: string): Promise<string> {
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
