// Config → complete() → new(name, delegate), as k8s.io/apiserver/pkg/server/config.go.
// Durations here are milliseconds (flags hold Go nanoseconds and convert in ApplyTo).

import type { Handler } from '../endpoints/request/context.ts';
import { kubeLongRunningRequestCheck, type LongRunningRequestCheck } from '../endpoints/request/longrunning.ts';
import type { RequestAuthenticator } from '../authentication/authenticator.ts';
import type { RequestHeaderConfig } from '../authentication/requestheader.ts';
import { BearerTokenAuthenticator } from '../authentication/bearertoken.ts';
import { LoopbackTokenAuthenticator } from '../authentication/static-token.ts';
import { unionBeforeAnonymous } from '../authentication/union.ts';
import type { Authorizer, RuleResolver } from '../authorization/authorizer.ts';
import type { FileSystem } from '../util/filesystem.ts';
import type { SecureServingInfo } from './secure-serving.ts';
import { type HealthChecker, logHealthz, pingHealthz } from './healthz/healthz.ts';
import { LifecycleSignals } from './lifecycle.ts';
import { SafeWaitGroup } from '../util/waitgroup.ts';
import { KlogLogger, type Logger } from '../util/logger.ts';
import { defaultVersionInfo, type VersionInfo } from './routes/version.ts';
import { buildHandlerChain } from './chain.ts';
import { APIServerMetrics } from '../metrics/apiserver.ts';
import { installMetrics } from '../metrics/routes.ts';
import { installFlowControlDebug } from '../flowcontrol/debug.ts';
import { installDiscovery } from '../endpoints/discovery/discovery.ts';
import { installReviewAPIs } from '../apis/install.ts';
import {
  defaultAdmissionPlugins,
  defaultControllers,
  installResourceAPIs,
  type AdmissionPluginFactory,
} from './routes/resources.ts';
import type { Controller } from './controllers/controller.ts';
import { builtinResources } from '../registry/core/resources.ts';
import { flowcontrolResources } from '../registry/flowcontrol/resources.ts';
import { rbacResources } from '../registry/rbac/resources.ts';
import { ResourceRegistry, type ResourceDefinition } from '../registry/rest/registry.ts';
import { installOpenAPI } from './routes/openapi.ts';
import type { FlowControl } from '../flowcontrol/controller.ts';
import type { RouteTarget } from './mux/container.ts';
import { GenericAPIServer, type DelegationTarget, type PostStartHookFunc } from './genericapiserver.ts';

export interface AuthenticationInfo {
  /** The authenticator; undefined means the authentication filter is a no-op. */
  authenticator?: RequestAuthenticator;
  /** `--api-audiences`. */
  apiAudiences: string[];
  /** PEM bundle of `--client-ca-file` (listeners request client certificates when it is set). */
  clientCA?: string;
  /** PEM bundle of `--requestheader-client-ca-file` (front-proxy client certificates). */
  requestHeaderClientCA?: string;
  /** Front-proxy header names (`--requestheader-*`), stripped from every authenticated request. */
  requestHeaderConfig?: RequestHeaderConfig;
}

export interface AuthorizationInfo {
  /** The authorizer; undefined means the authorization filter is a no-op. */
  authorizer?: Authorizer;
  /** What SelfSubjectRulesReview lists (the modes' rule resolvers, in order). */
  ruleResolver?: RuleResolver;
}

export interface Config {
  /** Builds the filter chain around the director (DefaultBuildHandlerChain). */
  buildHandlerChainFunc: (apiHandler: Handler, c: CompletedConfig) => Handler;
  /** `/api` is the legacy (groupless) prefix; `/apis` the group prefix. */
  legacyAPIGroupPrefixes: string[];
  healthzChecks: HealthChecker[];
  livezChecks: HealthChecker[];
  readyzChecks: HealthChecker[];
  /** `--livez-grace-period`. */
  livezGracePeriod: number;
  enableIndex: boolean;
  enableDiscovery: boolean;
  enableProfiling: boolean;
  enableMetrics: boolean;
  /** `--request-timeout` (ms); also the HTTP shutdown timeout. */
  requestTimeout: number;
  /** `--min-request-timeout` (seconds, as upstream). */
  minRequestTimeout: number;
  maxRequestsInFlight: number;
  maxMutatingRequestsInFlight: number;
  /** Bytes; 0 means no limit. */
  maxRequestBodyBytes: number;
  shutdownDelayDuration: number;
  shutdownSendRetryAfter: boolean;
  shutdownWatchTerminationGracePeriod: number;
  goawayChance: number;
  /** `--cors-allowed-origins` regular expressions (source strings). */
  corsAllowedOrigins: string[];
  /** `--strict-transport-security-directives`. */
  hstsDirectives: string[];
  longRunningFunc: LongRunningRequestCheck;
  version: VersionInfo;
  authentication: AuthenticationInfo;
  authorization: AuthorizationInfo;
  /** Set when API Priority and Fairness is enabled (`--enable-priority-and-fairness`, default true). */
  flowControl?: FlowControl;
  /** This server's metrics (its own registry: nothing global, see src/metrics/). */
  metrics: APIServerMetrics;
  /**
   * `--external-hostname`, else the advertise address; complete() appends the secure port when it
   * has none. Discovery's serverAddressByClientCIDRs and the default service-account JWKS URI.
   */
  externalAddress: string;
  /** `--advertise-address` (upstream PublicAddress), defaulted from the bind address and host interface. */
  publicAddress?: string;
  /**
   * Installers run at the end of New(): API groups, discovery, /metrics, OpenID routes … Option
   * groups and embedders push here (upstream: installAPI and InstallAPIGroup).
   */
  routeInstallers: ((server: RouteTarget<CompletedConfig>) => void)[];
  /** Hooks run once serving starts; names listed in disabledPostStartHooks are skipped. */
  postStartHooks: Map<string, PostStartHookFunc>;
  disabledPostStartHooks: Set<string>;
  /** Bearer token of the loopback client (a random UUID per start). */
  loopbackToken?: string;
  /** What a listener needs (SecureServingOptions.applyTo); undefined when not serving HTTPS. */
  secureServing?: SecureServingInfo;
  lifecycleSignals: LifecycleSignals;
  nonLongRunningRequestWaitGroup: SafeWaitGroup;
  watchRequestWaitGroup: SafeWaitGroup;
  logger: Logger;
  /** Where options read files from (Node: the disk; edge: bundled files). */
  fileSystem?: FileSystem;
  /** Audit policy and backend (AuditPolicyRuleEvaluator, AuditBackend); WithAudit needs both. */
  audit?: import('../audit/types.ts').AuditConfig;
  /** `--service-cluster-ip-range`: the CIDRs (primary first) service cluster IPs come from. */
  serviceClusterIPRanges: string[];
  /** `--event-ttl` in seconds: how long events are kept (a TTL on their storage write). */
  eventTTLSeconds: number;
  /** The storage backend (EtcdOptions.applyTo): the engine under every resource's storage.Interface. */
  storage?: import('../storage/storagebackend/open.ts').StorageBackend;
  /** The resources served from `storage` (built-in groups add theirs here). */
  resourceDefinitions: ResourceDefinition[];
  /**
   * The served resources' Stores (complete() makes it from `storage` and `resourceDefinitions`
   * when unset): what the REST routes serve and what controllers and authorizers read.
   */
  resources?: ResourceRegistry;
  /** Admission plugins in order, each built over the registry (NamespaceLifecycle first). */
  admissionPlugins: AdmissionPluginFactory[];
  /** Controllers run over the registry while the server lives. */
  controllers: Controller[];
  /**
   * This server's identity (kube-apiserver's `apiserver-<uuid>`): its holderIdentity in leader
   * election and in its identity Lease.
   */
  apiServerID: string;
  /**
   * `--leader-elect…` (src/server/options/leaderelection.ts): the Lease the controllers that must
   * run once are elected through, when several servers share the storage (etcd).
   */
  leaderElection?: import('./leaderelection/config.ts').LeaderElectionSettings;
}

/** A Config whose defaults are filled in (`complete()`); what the chain and server read. */
export interface CompletedConfig extends Readonly<Config> {
  readonly completed: true;
}

/** NewConfig: upstream defaults (k8s.io/apiserver/pkg/server/config.go), with kube-apiserver's LongRunningFunc. */
export function newConfig(overrides: Partial<Config> = {}): Config {
  return {
    buildHandlerChainFunc: buildHandlerChain,
    legacyAPIGroupPrefixes: ['/api'],
    healthzChecks: [pingHealthz, logHealthz],
    livezChecks: [pingHealthz, logHealthz],
    readyzChecks: [pingHealthz, logHealthz],
    livezGracePeriod: 0,
    enableIndex: true,
    enableDiscovery: true,
    enableProfiling: true,
    enableMetrics: true,
    requestTimeout: 60_000,
    minRequestTimeout: 1800,
    maxRequestsInFlight: 400,
    maxMutatingRequestsInFlight: 200,
    maxRequestBodyBytes: 3 * 1024 * 1024,
    shutdownDelayDuration: 0,
    shutdownSendRetryAfter: false,
    shutdownWatchTerminationGracePeriod: 0,
    goawayChance: 0,
    corsAllowedOrigins: [],
    hstsDirectives: [],
    longRunningFunc: kubeLongRunningRequestCheck,
    version: defaultVersionInfo(),
    authentication: { apiAudiences: [] },
    authorization: {},
    externalAddress: '',
    serviceClusterIPRanges: ['10.0.0.0/24'],
    eventTTLSeconds: 3600,
    routeInstallers: [
      installMetrics,
      installDiscovery,
      installFlowControlDebug,
      installResourceAPIs,
      installReviewAPIs,
      installOpenAPI,
    ],
    resourceDefinitions: [...builtinResources, ...rbacResources, ...flowcontrolResources],
    admissionPlugins: defaultAdmissionPlugins(),
    controllers: defaultControllers(),
    apiServerID: `apiserver-${crypto.randomUUID()}`,
    postStartHooks: new Map(),
    disabledPostStartHooks: new Set(),
    lifecycleSignals: new LifecycleSignals(),
    nonLongRunningRequestWaitGroup: new SafeWaitGroup(),
    watchRequestWaitGroup: new SafeWaitGroup(),
    logger: new KlogLogger(),
    metrics: new APIServerMetrics(),
    ...overrides,
  };
}

/**
 * AuthorizeClientBearerToken (k8s.io/apiserver/pkg/server/config.go): with a loopback token and
 * both an authenticator and an authorizer, the loopback token authenticator goes first.
 */
export function authorizeClientBearerToken(
  loopbackToken: string | undefined,
  authenticator: RequestAuthenticator | undefined,
  authorizer: Authorizer | undefined,
): RequestAuthenticator | undefined {
  if (!authenticator || !loopbackToken || !authorizer) return authenticator;
  // Another token is an error here ("invalid bearer token", as upstream's bearertoken.New over the
  // token file); its warnings are left to the bearer authenticator of the chain.
  const loopback = new BearerTokenAuthenticator(new LoopbackTokenAuthenticator(loopbackToken), () => {});
  return unionBeforeAnonymous(loopback, authenticator);
}

/** Config.Complete: fills derived defaults and puts the loopback token in front of the authenticator. */
export function complete(config: Config): CompletedConfig {
  if ((config as Partial<CompletedConfig>).completed) return config as CompletedConfig;
  let externalAddress = config.externalAddress;
  if (!externalAddress && config.publicAddress) externalAddress = config.publicAddress;
  // Upstream Config.Complete: an address without a port gets the secure port. Upstream exits when
  // there is no secure port; here an empty address stays empty (edge runtimes know no host).
  if (externalAddress && !hasPort(externalAddress) && config.secureServing) {
    externalAddress = joinHostPort(externalAddress, config.secureServing.bindPort);
  }
  const { authentication: a, authorization: z } = config;
  const authenticator = authorizeClientBearerToken(config.loopbackToken, a.authenticator, z.authorizer);
  const authentication = authenticator === a.authenticator ? a : { ...a, authenticator };
  const resources =
    config.resources ??
    (config.storage
      ? new ResourceRegistry(config.storage.factory, config.resourceDefinitions, {
          serviceClusterIPRanges: config.serviceClusterIPRanges,
          eventTTLSeconds: config.eventTTLSeconds,
        })
      : undefined);
  return { ...config, externalAddress, authentication, resources, completed: true };
}

/** Whether Go's net.SplitHostPort accepts `addr` (`host:port`, `[v6]:port`). */
export function hasPort(addr: string): boolean {
  if (addr.startsWith('[')) return /^\[[^\]]*\]:[^:]*$/.test(addr);
  const i = addr.indexOf(':');
  return i >= 0 && addr.indexOf(':', i + 1) < 0;
}

/** net.JoinHostPort. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** completedConfig.New(name, delegationTarget). */
export function newServer(c: CompletedConfig, name: string, delegate?: DelegationTarget): GenericAPIServer {
  return new GenericAPIServer(c, name, delegate);
}
