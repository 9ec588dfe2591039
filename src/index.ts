// edge-apiserver: the public, portable API. Everything here runs on any runtime with the Web
// platform (Request/Response, WebCrypto); nothing imports node:*.

/** Config, defaults and construction: newConfig() → complete() → newServer(name, delegate). */
export { newConfig, complete, newServer, type Config, type CompletedConfig } from './server/config.ts';
export {
  basicLongRunningRequestCheck,
  kubeLongRunningRequestCheck,
  type LongRunningRequestCheck,
} from './endpoints/request/longrunning.ts';
/** kube-apiserver's start-up path from flag strings: the CLI and every edge adapter use it. */
export {
  buildServerFromFlags,
  OptionsValidationError,
  type BuildServerOptions,
  type BuiltServer,
} from './app/build.ts';
/** One server per isolate from env/bindings or code (what every edge adapter uses). */
export {
  EdgeServer,
  settingsFromEnv,
  mergeSettings,
  buildEdgeServer,
  startWithoutListener,
  LayeredFileSystem,
  type EdgeSettings,
} from './app/edge.ts';
/** A kube-apiserver flag string (from one env var) → argv. */
export { splitArgs, ArgsSyntaxError } from './server/options/args.ts';
export { ServerOptions, aggregateErrors, type OptionsGroup, type ApplyContext } from './server/options/options.ts';
export type { Platform } from './server/platform.ts';
/** The server, its delegation seam and the kube-apiserver not-found handler. */
export {
  GenericAPIServer,
  newEmptyDelegate,
  notFoundHandler,
  type DelegationTarget,
  type PostStartHookFunc,
  type PostStartHookContext,
  type PreShutdownHookFunc,
  type ServingListener,
  type RunOptions,
} from './server/genericapiserver.ts';
/** The director, API routes (Hono) and the non-API mux. */
export { APIServerHandler } from './server/handler.ts';
export type { APIEnv, RouteContainer, RouteTarget } from './server/mux/container.ts';
export { PathRecorderMux } from './server/mux/pathrecorder.ts';
/** DefaultBuildHandlerChain: wrap any handler in upstream's filter order. */
export { buildHandlerChain } from './server/chain.ts';
export { LifecycleSignal, LifecycleSignals } from './server/lifecycle.ts';
/** Health checks for /healthz, /livez, /readyz. */
export { namedCheck, pingHealthz, logHealthz, type HealthChecker } from './server/healthz/healthz.ts';
export { defaultVersionInfo, kubernetesVersion, projectVersion, type VersionInfo } from './server/routes/version.ts';
/** Request-scoped state and the handler/filter types. */
export {
  newRequestContext,
  finalizeResponse,
  type RequestContext,
  type Handler,
  type Filter,
  type Transport,
  type UserInfo,
} from './endpoints/request/context.ts';
export {
  RequestInfoFactory,
  RequestInfoError,
  type RequestInfo,
  type RequestInfoFactoryOptions,
} from './endpoints/request/requestinfo.ts';
/** Status bodies exactly as upstream writes them. */
export {
  StatusError,
  encodeStatus,
  errorNegotiated,
  respondWithError,
  httpError,
  type Status,
  type StatusDetails,
} from './endpoints/responsewriters/status.ts';
/** Flags with kube-apiserver syntax. */
export { FlagSet, Flag, FlagError, HelpRequested } from './server/options/flags.ts';
export { MemoryFileSystem, type FileSystem } from './util/filesystem.ts';
/** Secure serving options and what a listener needs (certificate code loads lazily, see dynamiccertificates/). */
export { SecureServingOptions, type SecureServingInfo, type NamedCertKey } from './server/options/serving.ts';
export { LogsOptions } from './server/options/logs.ts';
export type {
  CertKeyContentProvider,
  SNICertKeyContentProvider,
  CAContentProvider,
} from './server/dynamiccertificates/content.ts';
/** Authentication: kube-apiserver's authenticators, composable on their own (k8s.io/apiserver/pkg/authentication). */
export {
  withAudiences,
  audiencesFrom,
  requestFunc,
  tokenFunc,
  type RequestAuthenticator,
  type TokenAuthenticator,
  type AuthenticatorResponse,
} from './authentication/authenticator.ts';
export { withAuthentication, unauthorized } from './filters/authentication.ts';
/** The chain's non-security filters, each usable alone (honoMiddleware turns one into Hono middleware). */
export { honoMiddleware, type FilterEnv } from './filters/middleware.ts';
export { withAuditInit } from './filters/audit-init.ts';
export { withAudit } from './filters/audit.ts';
export { withFailedAuthenticationAudit } from './filters/failed-authentication-audit.ts';
export { withPanicRecovery, ErrAbortHandler, AbortHandlerError } from './filters/panic-recovery.ts';
export { withRequestReceivedTimestamp } from './filters/request-received-time.ts';
export { withRequestInfo, newRequestInfoResolver } from './filters/requestinfo.ts';
export { withLatencyTrackers, trackLatency } from './filters/latency-trackers.ts';
export { withHTTPLogging, addKeyValue } from './filters/httplog.ts';
export { withRetryAfter } from './filters/retry-after.ts';
export { withHSTS } from './filters/hsts.ts';
export { withCacheControl } from './filters/cachecontrol.ts';
export { withProbabilisticGoaway } from './filters/goaway.ts';
export { withWatchTerminationDuringShutdown, serverShutdownSignalFrom } from './filters/watch-termination.ts';
export { withWaitGroup } from './filters/waitgroup.ts';
export { withRequestDeadline } from './filters/request-deadline.ts';
export { withTimeoutForNonLongRunningRequests } from './filters/timeout.ts';
export { withWarningRecorder } from './filters/warning.ts';
export { addWarning } from './endpoints/request/warning.ts';
export { withCORS } from './filters/cors.ts';
export { withMaxInFlightLimit } from './filters/maxinflight.ts';
export { withMuxAndDiscoveryComplete } from './filters/mux-discovery-complete.ts';
export { UnionAuthenticator, UnionTokenAuthenticator, AuthenticatedGroupAdder } from './authentication/union.ts';
export { AnonymousAuthenticator } from './authentication/anonymous.ts';
export {
  BearerTokenAuthenticator,
  WebSocketProtocolAuthenticator,
  parseBearerToken,
} from './authentication/bearertoken.ts';
export { StaticTokenAuthenticator, LoopbackTokenAuthenticator } from './authentication/static-token.ts';
export { newTokenFileAuthenticator, parseTokenFile } from './authentication/tokenfile.ts';
export { CachedTokenAuthenticator, type TokenCacheOptions } from './authentication/cache.ts';
export {
  newAuthenticator,
  type AuthenticatorConfig,
  type AuthenticatorDeps,
  type BuiltAuthenticator,
} from './authentication/factory.ts';
export { wrapAudienceAgnosticToken, wrapAudienceAgnosticRequest } from './authentication/audiences.ts';
export { CertPool, X509Authenticator, X509Verifier, verifyClientCertificate } from './authentication/x509.ts';
export {
  RequestHeaderAuthenticator,
  newSecureRequestHeaderAuthenticator,
  defaultRequestHeaderConfig,
  type RequestHeaderConfig,
} from './authentication/requestheader.ts';
export {
  ServiceAccountTokenAuthenticator,
  mintServiceAccountToken,
  makeUsername as serviceAccountUsername,
  type MintServiceAccountTokenOptions,
} from './authentication/serviceaccount.ts';
export { parsePublicKeysPEM, parsePrivateKeyPEM, type PublicKeyEntry, type SigningKey } from './authentication/keys.ts';
export { newOpenIDMetadata, openIDMetadataInstaller } from './authentication/openid.ts';
export {
  JWTAuthenticator,
  allowedSigningAlgorithms,
  type JWTAuthenticatorConfig,
  type JWTAuthenticatorOptions,
} from './authentication/jwt.ts';
export {
  parseAuthenticationConfiguration,
  type AuthenticationConfiguration,
} from './authentication/authentication-config.ts';
export { WebhookTokenAuthenticator } from './authentication/webhook.ts';
export { AuthenticationOptions } from './server/options/authentication.ts';
export type {
  Authorizer,
  Attributes,
  Decision,
  AuthorizationResult,
  RuleResolver,
  RulesResult,
} from './authorization/authorizer.ts';
/** Authorizers (union, AlwaysAllow/Deny, system:masters, RBAC from manifests, webhook) and the filters. */
export { attributes } from './authorization/authorizer.ts';
export { UnionAuthorizer, UnionRuleResolver } from './authorization/union.ts';
export { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, PrivilegedGroupAuthorizer } from './authorization/builtin.ts';
export { RBACAuthorizer, ruleAllows } from './authorization/rbac.ts';
export {
  parseManifests,
  ManifestError,
  type RBACObject,
  type PolicyRule as RBACPolicyRule,
} from './authorization/rbac-policy.ts';
export { bootstrapPolicy } from './authorization/rbac-bootstrap.ts';
export { ManifestLoader, readManifests } from './authorization/rbac-loader.ts';
export { WebhookAuthorizer, parseWebhookKubeconfig, type WebhookAuthorizerOptions } from './authorization/webhook.ts';
export { forbidden, forbiddenStatus } from './authorization/forbidden.ts';
export { withAuthorization } from './filters/authorization.ts';
export { withImpersonation } from './filters/impersonation.ts';
export { AuthorizationOptions } from './server/options/authorization.ts';
/** Discovery and the built-in review APIs. */
export {
  installAPIGroup,
  installDiscovery,
  type APIGroupInfo,
  type APIResource,
} from './endpoints/discovery/discovery.ts';
export { installReviewAPIs } from './apis/install.ts';
export { KlogLogger, discardLogger, type Logger } from './util/logger.ts';
export { parseGoDuration, formatGoDuration } from './util/duration.ts';
/** Auditing (k8s.io/apiserver/pkg/audit): policy, events, backends, and what handlers call to enrich events. */
export {
  loadPolicyFromBytes,
  loadPolicyFromFile,
  newPolicyRuleEvaluator,
  fixedPolicyRuleEvaluator,
  type Policy,
  type PolicyRule,
  type PolicyRuleEvaluator,
} from './audit/policy.ts';
export {
  LogBackend,
  stdoutAuditWriter,
  type AuditWriter,
  type AuditLogOpener,
  type AuditLogFileOptions,
} from './audit/log.ts';
export { WebhookBackend } from './audit/webhook.ts';
/** The webhook toolkit every webhook uses (k8s.io/apiserver/pkg/util/webhook). */
export {
  loadWebhookKubeconfig,
  parseKubeconfig,
  KubeconfigError,
  type WebhookClientConfig,
  type WebhookTLSConfig,
} from './util/webhook/kubeconfig.ts';
export { WebhookClient, type WebhookFetchFactory, type FetchFunction } from './util/webhook/client.ts';
export { defaultRetryBackoff, withExponentialBackoff, type Backoff } from './util/webhook/backoff.ts';
export { BufferedBackend, type BatchConfig } from './audit/buffered.ts';
export { unionBackends, IgnoreErrorsBackend } from './audit/union.ts';
export { AuditMetrics } from './audit/metrics.ts';
export { encodeEvent, eventString } from './audit/event.ts';
export {
  addAuditAnnotation,
  logImpersonatedUser,
  logRequestObject,
  logRequestPatch,
  logResponseObject,
} from './audit/context.ts';
export type {
  AuditEvent,
  AuditBackend,
  AuditSink,
  AuditConfig,
  Level as AuditLevel,
  Stage as AuditStage,
} from './audit/types.ts';
/** API Priority and Fairness (k8s.io/apiserver/pkg/util/flowcontrol) and the Prometheus metrics (/metrics). */
export {
  FlowControl,
  type FlowControlOptions,
  type Classification,
  type PriorityLevelState,
  type FlowSchemaState,
  type RejectedObject,
} from './flowcontrol/controller.ts';
export { parseFlowControlManifests, readFlowControlManifests } from './flowcontrol/manifests.ts';
export type { FlowSchema, PriorityLevelConfiguration } from './flowcontrol/types.ts';
export { withPriorityAndFairness, watchInitializedKey, classificationKey } from './filters/priority-and-fairness.ts';
export { FeatureOptions } from './server/options/features.ts';
export { APIServerMetrics } from './metrics/apiserver.ts';
export {
  Registry,
  Counter,
  Gauge,
  Histogram,
  GaugeFunc,
  textContentType,
  type Collector,
  type MetricOpts,
  type HistogramOpts,
} from './metrics/registry.ts';
export { installMetrics } from './metrics/routes.ts';
