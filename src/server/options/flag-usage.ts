// The --help text of the flags, by flag name: only the CLI prints it. The Worker build aliases
// this module to flag-usage.worker.ts (wrangler.toml [alias]), which has none: ~6 KiB gzip of
// text it never shows. Flags whose text is computed (or used in a message) keep it inline.

/** Flag name → usage, as kube-apiserver's `--help` prints it. */
export const flagUsage: Readonly<Record<string, string>> = {
  'audit-policy-file': 'Path to the file that defines the audit policy configuration.',
  'audit-log-path':
    "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.",
  'audit-log-maxage':
    'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename. Setting a value of 0 means old audit log files are not removed based on age.',
  'audit-log-maxbackup':
    "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.",
  'audit-log-maxsize':
    'The maximum size in megabytes of the audit log file before it gets rotated. Setting to 0 disables rotation (not recommended).',
  'audit-log-format':
    'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.',
  'audit-log-version': 'API group and version used for serializing audit events written to log.',
  'audit-log-compress': 'If set, the rotated log files will be compressed using gzip.',
  'audit-webhook-config-file': 'Path to a kubeconfig formatted file that defines the audit webhook configuration.',
  'audit-webhook-initial-backoff': 'The amount of time to wait before retrying the first failed request.',
  'audit-webhook-batch-initial-backoff': 'The amount of time to wait before retrying the first failed request.',
  'audit-webhook-version': 'API group and version used for serializing audit events written to webhook.',
  'anonymous-auth':
    'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.',
  'api-audiences':
    'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.',
  'authentication-config':
    'File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. Note: This feature is in Alpha since v1.29.--feature-gate=StructuredAuthenticationConfiguration=true needs to be set for enabling this feature.This feature is mutually exclusive with the oidc-* flags.',
  'authentication-token-webhook-cache-ttl': 'The duration to cache responses from the webhook token authenticator.',
  'authentication-token-webhook-config-file':
    'File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.',
  'authentication-token-webhook-version':
    'The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.',
  'client-ca-file':
    'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.',
  'oidc-ca-file':
    "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.",
  'oidc-client-id': 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.',
  'oidc-groups-claim':
    'If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings. This flag is experimental, please see the authentication documentation for further details.',
  'oidc-groups-prefix':
    'If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.',
  'oidc-issuer-url':
    'The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).',
  'oidc-required-claim':
    'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.',
  'oidc-signing-algs':
    "Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512. Values are defined by RFC 7518 https://tools.ietf.org/html/rfc7518#section-3.1.",
  'oidc-username-claim':
    "The OpenID claim to use as the user name. Note that claims other than the default ('sub') is not guaranteed to be unique and immutable. This flag is experimental, please see the authentication documentation for further details.",
  'oidc-username-prefix':
    "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.",
  'requestheader-allowed-names':
    'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.',
  'requestheader-client-ca-file':
    'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.',
  'requestheader-extra-headers-prefix': 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.',
  'requestheader-group-headers': 'List of request headers to inspect for groups. X-Remote-Group is suggested.',
  'requestheader-uid-headers':
    'List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.',
  'requestheader-username-headers': 'List of request headers to inspect for usernames. X-Remote-User is common.',
  'service-account-issuer':
    'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. If this option is not a valid URI per the OpenID Discovery 1.0 spec, the ServiceAccountIssuerDiscovery feature will remain disabled, even if the feature gate is set to true. It is highly recommended that this value comply with the OpenID spec: https://openid.net/specs/openid-connect-discovery-1_0.html. In practice, this means that service-account-issuer must be an https URL. It is also highly recommended that this URL be capable of serving OpenID discovery documents at {service-account-issuer}/.well-known/openid-configuration. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted.',
  'service-account-jwks-uri':
    "Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. This flag is useful if the discovery docand key set are served to relying parties from a URL other than the API server's external (as auto-detected or overridden with external-hostname).",
  'service-account-key-file':
    'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, --tls-private-key-file is used. Must be specified when --service-account-signing-key-file is provided',
  'service-account-lookup': 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.',
  'service-account-extend-token-expiration':
    'Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.',
  'service-account-max-token-expiration':
    'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.',
  'service-account-signing-key-file':
    'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key.',
  'token-auth-file':
    'If set, the file that will be used to secure the secure port of the API server via token authentication.',
  'authorization-policy-file':
    'File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.',
  'authorization-webhook-config-file':
    "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.",
  'authorization-webhook-version':
    'The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.',
  'authorization-webhook-cache-authorized-ttl':
    "The duration to cache 'authorized' responses from the webhook authorizer.",
  'authorization-webhook-cache-unauthorized-ttl':
    "The duration to cache 'unauthorized' responses from the webhook authorizer.",
  'authorization-rbac-manifests':
    'Files or folders of RBAC manifests (Role, ClusterRole, RoleBinding, ClusterRoleBinding; YAML or JSON, multi-document) used with --authorization-mode=RBAC, merged with the built-in bootstrap policy and reloaded when they change. A manifest with errors is rejected and the last good policy stays in force.',
  'etcd-cafile': 'SSL Certificate Authority file used to secure etcd communication.',
  'etcd-certfile': 'SSL certification file used to secure etcd communication.',
  'etcd-compaction-interval':
    'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.',
  'etcd-healthcheck-timeout': 'The timeout to use when checking etcd health.',
  'etcd-keyfile': 'SSL key file used to secure etcd communication.',
  'etcd-prefix': 'The prefix to prepend to all resource paths in etcd.',
  'etcd-readycheck-timeout': 'The timeout to use when checking etcd readiness',
  'encryption-provider-config':
    'The file containing configuration for encryption providers to be used for storing secrets in etcd',
  'etcd-servers': 'List of etcd servers to connect with (scheme://ip:port), comma separated.',
  'lease-reuse-duration-seconds':
    'The time in seconds that each lease is reused. A lower value could avoid large number of objects reusing the same lease. Notice that a too small value may cause performance problems at storage layer.',
  'sqlite-path':
    "The file of the embedded SQLite store, used when --storage-backend is 'sqlite' (the default without --etcd-servers). Defaults to registry.db in --cert-dir.",
  'storage-backend':
    "The storage backend for persistence. Options: 'etcd3' (default when --etcd-servers is set), 'sqlite' (the embedded file at --sqlite-path; default otherwise), 'memory' (nothing persists).",
  'watch-cache': 'Enable watch caching in the apiserver',
  'event-ttl': 'Amount of time to retain events.',
  'service-cluster-ip-range':
    'A CIDR notation IP range from which to assign service cluster IPs. This must not overlap with any IP ranges assigned to nodes or pods. Max of two dual-stack CIDRs is allowed.',
  'contention-profiling':
    'Enable block profiling, if profiling is enabled (a no-op here: there is no Go runtime to profile)',
  'debug-socket-path':
    'Use an unprotected (no authn/authz) unix-domain socket for profiling with the given path (accepted and ignored here: there is no pprof to serve)',
  'enable-priority-and-fairness':
    'If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness',
  'flowcontrol-config-file':
    'Files or directories of flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration manifests (YAML or JSON) added to the built-in bootstrap configuration. Objects with errors are rejected with the reason and the rest stays in force.',
  profiling: 'Enable profiling via web interface host:port/debug/pprof/',
  'leader-elect':
    'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.',
  'leader-elect-lease-duration':
    'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate. This is only applicable if leader election is enabled.',
  'leader-elect-renew-deadline':
    'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration. This is only applicable if leader election is enabled.',
  'leader-elect-retry-period':
    'The duration the clients should wait between attempting acquisition and renewal of a leadership. This is only applicable if leader election is enabled.',
  'leader-elect-resource-lock':
    "The type of resource object that is used for locking during leader election. Supported options are 'leases'.",
  'leader-elect-resource-name': 'The name of resource object that is used for locking during leader election.',
  'leader-elect-resource-namespace':
    'The namespace of resource object that is used for locking during leader election.',
  v: 'number for the log level verbosity',
  'advertise-address':
    "The IP address on which to advertise the apiserver to members of the cluster. This address must be reachable by the rest of the cluster. If blank, the --bind-address will be used. If --bind-address is unspecified, the host's default interface will be used.",
  'strict-transport-security-directives':
    "List of directives for HSTS, comma separated. If this list is empty, then HSTS directives will not be added. Example: 'max-age=31536000,includeSubDomains,preload'",
  'external-hostname':
    'The hostname to use when generating externalized URLs for this master (e.g. Swagger API Docs or OpenID Discovery).',
  'max-requests-inflight':
    "This and --max-mutating-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.",
  'max-mutating-requests-inflight':
    "This and --max-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.",
  'request-timeout':
    'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.',
  'goaway-chance':
    "To prevent HTTP/2 clients from getting stuck on a single apiserver, randomly close a connection (GOAWAY). The client's other in-flight requests won't be affected, and the client will reconnect, likely landing on a different apiserver after going through the load balancer again. This argument sets the fraction of requests that will be sent a GOAWAY. Clusters with single apiservers, or which don't use a load balancer, should NOT enable this. Min is 0 (off), Max is .02 (1/50 requests); .001 (1/1000) is a recommended starting point.",
  'livez-grace-period':
    "This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. From apiserver's start time to when this amount of time has elapsed, /livez will assume that unfinished post-start hooks will complete successfully and therefore return true.",
  'min-request-timeout':
    'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.',
  'shutdown-delay-duration':
    'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.',
  'shutdown-send-retry-after':
    "If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a 'Retry-After' response header, in addition 'Connection: close' response header is set in order to tear down the TCP connection when idle.",
  'shutdown-watch-termination-grace-period':
    'This option, if set, represents the maximum amount of grace period the apiserver will wait for active watch request(s) to drain during the graceful server shutdown window.',
  'bind-address':
    'The IP address on which to listen for the --secure-port port. The associated interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. If blank or an unspecified address (0.0.0.0 or ::), all interfaces and IP address families will be used.',
  'cert-dir':
    'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.',
  'disable-http2-serving': 'If true, HTTP2 serving will be disabled [default=false]',
  'http2-max-streams-per-connection':
    "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default.",
  'permit-address-sharing':
    'If true, SO_REUSEADDR will be used when binding the port. This allows binding to wildcard IPs like 0.0.0.0 and specific IPs in parallel, and it avoids waiting for the kernel to release sockets in TIME_WAIT state. [default=false]',
  'permit-port-sharing':
    'If true, SO_REUSEPORT will be used when binding the port, which allows more than one instance to bind on the same address and port. [default=false]',
  'tls-cert-file':
    'File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory specified by --cert-dir.',
  'tls-private-key-file': 'File containing the default x509 private key matching --tls-cert-file.',
  'tls-sni-cert-key':
    'A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments. The domain patterns also allow IP addresses, but IPs should only be used if the apiserver has visibility to the IP address requested by a client. If no domain patterns are provided, the names of the certificate are extracted. Non-wildcard matches trump over wildcard matches, explicit domain patterns trump over extracted names. For multiple key/certificate pairs, use the --tls-sni-cert-key multiple times. Examples: "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com".',
  'audit-log-mode':
    'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.',
  'audit-webhook-mode':
    'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.',
  'audit-log-batch-buffer-size':
    'The size of the buffer to store events before batching and writing. Only used in batch mode.',
  'audit-webhook-batch-buffer-size':
    'The size of the buffer to store events before batching and writing. Only used in batch mode.',
  'audit-log-batch-max-size': 'The maximum size of a batch. Only used in batch mode.',
  'audit-webhook-batch-max-size': 'The maximum size of a batch. Only used in batch mode.',
  'audit-log-batch-max-wait':
    "The amount of time to wait before force writing the batch that hadn't reached the max size. Only used in batch mode.",
  'audit-webhook-batch-max-wait':
    "The amount of time to wait before force writing the batch that hadn't reached the max size. Only used in batch mode.",
  'audit-log-batch-throttle-enable': 'Whether batching throttling is enabled. Only used in batch mode.',
  'audit-webhook-batch-throttle-enable': 'Whether batching throttling is enabled. Only used in batch mode.',
  'audit-log-batch-throttle-qps': 'Maximum average number of batches per second. Only used in batch mode.',
  'audit-webhook-batch-throttle-qps': 'Maximum average number of batches per second. Only used in batch mode.',
  'audit-log-batch-throttle-burst':
    'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.',
  'audit-webhook-batch-throttle-burst':
    'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.',
  'audit-log-truncate-enabled': 'Whether event and batch truncating is enabled.',
  'audit-webhook-truncate-enabled': 'Whether event and batch truncating is enabled.',
  'audit-log-truncate-max-batch-size':
    'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.',
  'audit-webhook-truncate-max-batch-size':
    'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.',
  'audit-log-truncate-max-event-size':
    "Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn't reduce the size enough, event is discarded.",
  'audit-webhook-truncate-max-event-size':
    "Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn't reduce the size enough, event is discarded.",
};
