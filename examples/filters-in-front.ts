// Embedding (d): three of the API server's filters, alone, in front of your own Hono routes —
// authentication (a token file), RBAC (from manifests) and audit (a policy and a log) — with no
// API server around them. Each filter gets only the small config it reads; honoMiddleware turns
// `withX(next, config)` into Hono middleware that shares one request context.
import { Hono } from 'hono';
import {
  APIServerMetrics,
  AuditMetrics,
  BearerTokenAuthenticator,
  LogBackend,
  RBACAuthorizer,
  UnionAuthenticator,
  discardLogger,
  honoMiddleware,
  kubeLongRunningRequestCheck,
  loadPolicyFromBytes,
  newPolicyRuleEvaluator,
  newTokenFileAuthenticator,
  parseManifests,
  withAudit,
  withAuditInit,
  withAuthentication,
  withAuthorization,
  withRequestInfo,
  type AuditWriter,
  type FilterEnv,
  type Logger,
} from '../src/index.ts';

export interface FilteredAppOptions {
  /** `--token-auth-file` contents: `token,user,uid,"group1,group2"` per line. */
  tokensCSV: string;
  /** RBAC Roles/ClusterRoles and their bindings, as YAML. */
  rbacYAML: string;
  /** An audit.k8s.io/v1 Policy, as YAML. */
  auditPolicyYAML: string;
  /** Where audit events go (one JSON line per event). */
  auditLog: AuditWriter;
  logger?: Logger;
}

export async function createFilteredApp(o: FilteredAppOptions): Promise<Hono<FilterEnv>> {
  const logger = o.logger ?? discardLogger;
  const metrics = new APIServerMetrics();
  const tokens = await newTokenFileAuthenticator(o.tokensCSV, 'tokens.csv', logger);
  const authenticator = new UnionAuthenticator([new BearerTokenAuthenticator(tokens)]);
  const authorizer = new RBACAuthorizer(parseManifests(o.rbacYAML, 'rbac.yaml'));
  const audit = {
    policyRuleEvaluator: newPolicyRuleEvaluator(loadPolicyFromBytes(o.auditPolicyYAML)),
    backend: new LogBackend(o.auditLog, 'json', logger, new AuditMetrics()),
  };

  const app = new Hono<FilterEnv>();
  // Outermost first, as a request meets them (DefaultBuildHandlerChain's order, src/server/chain.ts).
  app.use(honoMiddleware(withAuditInit, {}));
  app.use(honoMiddleware(withRequestInfo, { legacyAPIGroupPrefixes: ['/api'] }));
  app.use(
    honoMiddleware(withAuthentication, { authentication: { authenticator, apiAudiences: [] }, audit, logger, metrics }),
  );
  app.use(honoMiddleware(withAudit, { audit, longRunningFunc: kubeLongRunningRequestCheck, logger }));
  app.use(honoMiddleware(withAuthorization, { authorization: { authorizer }, logger, metrics }));

  // Your routes: RequestInfo sees `/apis/<group>/<version>/namespaces/<ns>/<resource>` as a resource request.
  app.get('/apis/example.com/v1/namespaces/:ns/widgets', (c) =>
    c.json({ kind: 'WidgetList', items: [], user: c.var.requestContext.user?.name }),
  );
  app.get('/hello', (c) => c.text(`hello ${c.var.requestContext.user?.name}`));
  return app;
}
