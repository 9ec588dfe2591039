// BuiltInAuthorizationOptions (kubernetes pkg/kubeapiserver/options/authorization.go) with
// kube-apiserver's flag names and validation messages, plus `--authorization-rbac-manifests`
// (ours: RBAC objects come from manifest files instead of etcd). ApplyTo turns the flags into a
// plain AuthorizerConfig and builds from it with src/authorization/factory.ts; the review APIs are
// a route installer of the server (src/apis/install.ts).
//
// Secure default: without `--authorization-mode`, a server that terminates TLS itself (the Node
// CLI) uses RBAC with the built-in bootstrap policy, so anonymous users see health and version
// only and system:masters does everything; with no authentication or authorization flag at all
// it also writes an admin kubeconfig next to the serving certificate. Embedded and edge servers
// (behind the platform's TLS) keep kube-apiserver's default, AlwaysAllow.

import type { Config } from '../config.ts';
import type { FlagSet, Flag } from './flags.ts';
import type { ApplyContext, OptionsGroup } from './options.ts';
import { RBACAuthorizer } from '../../authorization/rbac.ts';
import { namedCheck } from '../healthz/healthz.ts';
import { BootstrapReadiness, RBACPolicyController } from '../../registry/rbac/policy-source.ts';
import { newRBACEscalationCheck } from '../../registry/rbac/escalation.ts';
import { rbacGroup } from '../../registry/rbac/resources.ts';
import type { ManifestLoader } from '../../authorization/rbac-loader.ts';
import type { WebhookFetchFactory } from '../../util/webhook/client.ts';
import { instrumentAuthorizer } from '../../metrics/authorization.ts';
import {
  modeABAC,
  modeAlwaysAllow,
  modeAlwaysDeny,
  modeNode,
  modeRBAC,
  modeWebhook,
  newAuthorizer,
  type AuthorizerConfig,
  type BuiltAuthorizer,
} from '../../authorization/factory.ts';
import {
  adminTokenAuthenticator,
  adminKubeconfig,
  adminKubeconfigName,
  adminUserName,
  existingAdminToken,
  localServerURL,
  newAdminToken,
} from '../../authorization/admin.ts';

export { modeAlwaysAllow, modeAlwaysDeny, modeABAC, modeWebhook, modeRBAC, modeNode };
const validModes = [modeAlwaysAllow, modeAlwaysDeny, modeABAC, modeWebhook, modeRBAC, modeNode];
/** Modes upstream has that this server does not implement (no nodes, no ABAC files). */
const unsupportedModes = new Set([modeABAC, modeNode]);

/** The default modes: RBAC where this process serves TLS (the Node CLI), else AlwaysAllow (upstream). */
export function defaultAuthorizationModes(servesTLS: boolean | undefined): string[] {
  return servesTLS ? [modeRBAC] : [modeAlwaysAllow];
}

const ns = 1_000_000; // nanoseconds per millisecond

export class AuthorizationOptions implements OptionsGroup {
  modes!: Flag<string[]>;
  policyFile!: Flag<string>;
  webhookConfigFile!: Flag<string>;
  webhookVersion!: Flag<string>;
  webhookCacheAuthorizedTTL!: Flag<number>;
  webhookCacheUnauthorizedTTL!: Flag<number>;
  rbacManifests!: Flag<string[]>;
  /** How the webhook is reached (the Node adapter may supply a fetch that honours the kubeconfig's CA). */
  webhookFetchFactory?: WebhookFetchFactory;
  /** Set by applyTo: the modes in force (the flag, or the default). */
  effectiveModes: string[] = [];
  /** Set by applyTo: the RBAC authorizer and its loader, when RBAC is enabled. */
  rbac?: { authorizer: RBACAuthorizer; loader?: ManifestLoader };

  private flagSet?: FlagSet;

  addFlags(fs: FlagSet): void {
    this.flagSet = fs;
    fs.section('Authorization');
    this.modes = fs.stringSlice(
      'authorization-mode',
      [],
      `Ordered list of plug-ins to do authorization on secure port. Defaults to RBAC with the built-in bootstrap policy when this process serves TLS (the Node CLI), and to AlwaysAllow (kube-apiserver's default) when embedded or behind a platform's TLS. Comma-delimited list of: ${validModes.join(',')}.`,
    );
    this.policyFile = fs.string('authorization-policy-file', '');
    this.webhookConfigFile = fs.string('authorization-webhook-config-file', '');
    this.webhookVersion = fs.string('authorization-webhook-version', 'v1beta1');
    this.webhookCacheAuthorizedTTL = fs.duration('authorization-webhook-cache-authorized-ttl', 5 * 60 * 1000 * ns);
    this.webhookCacheUnauthorizedTTL = fs.duration('authorization-webhook-cache-unauthorized-ttl', 30 * 1000 * ns);
    this.rbacManifests = fs.stringSlice('authorization-rbac-manifests', []);
  }

  validate(): string[] {
    const errs: string[] = [];
    const modes = this.modes.value;
    if (modes.length === 0 && this.modes.changed) errs.push('at least one authorization-mode must be passed');
    const set = new Set(modes);
    for (const m of modes) {
      if (!validModes.includes(m)) errs.push(`authorization-mode ${JSON.stringify(m)} is not a valid mode`);
      else if (unsupportedModes.has(m))
        errs.push(
          `authorization-mode ${JSON.stringify(m)} is not supported by edge-apiserver (supported: AlwaysAllow, AlwaysDeny, RBAC, Webhook)`,
        );
      if (m === modeABAC && this.policyFile.value === '')
        errs.push("authorization-mode ABAC's authorization policy file not passed");
      if (m === modeWebhook && this.webhookConfigFile.value === '')
        errs.push("authorization-mode Webhook's authorization config file not passed");
    }
    if (this.policyFile.value !== '' && !set.has(modeABAC))
      errs.push('cannot specify --authorization-policy-file without mode ABAC');
    if (this.webhookConfigFile.value !== '' && !set.has(modeWebhook))
      errs.push('cannot specify --authorization-webhook-config-file without mode Webhook');
    if (this.rbacManifests.value.length && this.modes.changed && !set.has(modeRBAC))
      errs.push('cannot specify --authorization-rbac-manifests without mode RBAC');
    if (modes.length !== set.size)
      errs.push(
        `authorization-mode [${modes.map((m) => JSON.stringify(m)).join(' ')}] has mode specified more than once`,
      );
    if (set.has(modeWebhook) && this.webhookVersion.value !== 'v1' && this.webhookVersion.value !== 'v1beta1') {
      errs.push(
        `unsupported webhook authorizer version ${JSON.stringify(this.webhookVersion.value)}, supported versions are "v1", "v1beta1"`,
      );
    }
    return errs;
  }

  /** The modes in force: the flag, else RBAC when manifests are given, else the default. */
  modesInForce(servesTLS: boolean | undefined): string[] {
    if (this.modes.changed) return this.modes.value;
    return this.rbacManifests.value.length ? [modeRBAC] : defaultAuthorizationModes(servesTLS);
  }

  /** The plain authorizer configuration these flags describe (authorizer.Config). */
  authorizerConfig(servesTLS: boolean | undefined): AuthorizerConfig {
    const modes = this.modesInForce(servesTLS);
    const out: AuthorizerConfig = { modes };
    if (modes.includes(modeWebhook)) {
      out.webhook = {
        configFile: this.webhookConfigFile.value,
        version: this.webhookVersion.value as 'v1' | 'v1beta1',
        authorizedTTL: this.webhookCacheAuthorizedTTL.value / ns,
        unauthorizedTTL: this.webhookCacheUnauthorizedTTL.value / ns,
      };
    }
    if (modes.includes(modeRBAC)) out.rbac = { manifests: [...this.rbacManifests.value] };
    return out;
  }

  async applyTo(config: Config, ctx: ApplyContext): Promise<void> {
    const authorizerConfig = this.authorizerConfig(ctx.servesTLS);
    const modes = authorizerConfig.modes;
    this.effectiveModes = modes;
    const webhookFetch = this.webhookFetchFactory ?? ctx.webhookFetch;
    const built = await newAuthorizer(authorizerConfig, {
      fileSystem: ctx.fileSystem,
      logger: ctx.logger,
      instrument: (a, mode) => instrumentAuthorizer(a, mode, config.metrics),
      ...(webhookFetch ? { webhookFetch } : {}),
    });
    if (built.rbac) this.rbac = built.rbac;
    installRBACStorage(config, built, ctx.logger);
    config.authorization.authorizer = built.authorizer;
    config.authorization.ruleResolver = built.ruleResolver;
    if (this.isSecureDefault() && modes.includes(modeRBAC)) await this.createAdminCredential(config, ctx);
  }

  /** No authentication or authorization flag was given (the secure default applies). */
  isSecureDefault(): boolean {
    const fs = this.flagSet;
    if (!fs) return false;
    return !secureDefaultFlags.some((n) => fs.lookup(n)?.changed);
  }

  /**
   * The secure default's admin credential (src/authorization/admin.ts): only where this process
   * terminates TLS and can write next to the serving certificate (the Node CLI).
   */
  private async createAdminCredential(config: Config, ctx: ApplyContext): Promise<void> {
    const serving = config.secureServing;
    const certDir = (this.flagSet?.lookup('cert-dir')?.value as string | undefined) ?? '';
    const fs = ctx.fileSystem;
    if (!ctx.servesTLS || !serving || !certDir || !fs.writeFile) return;
    const path = `${certDir.replace(/\/+$/, '')}/${adminKubeconfigName}`;
    const token = (await existingAdminToken(fs, path)) ?? newAdminToken();
    const server = localServerURL(serving.bindAddress, serving.bindPort);
    const ca = serving.cert?.currentCertKeyContent().cert;
    try {
      await fs.mkdirAll?.(certDir, 0o755);
      await fs.writeFile(path, new TextEncoder().encode(adminKubeconfig(server, ca, token)), 0o600);
    } catch (err) {
      ctx.logger.warning('Could not write the admin kubeconfig; no admin credential was created', {
        path,
        err: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    config.authentication.authenticator = adminTokenAuthenticator(token, config.authentication.authenticator);
    ctx.logger.info(
      `Secure default: RBAC with the bootstrap policy; anonymous users may read health and version only. ` +
        `Admin credential (user "${adminUserName}", group system:masters) written to ${path}; use it with: kubectl --kubeconfig ${path} get --raw /readyz`,
    );
  }
}

/**
 * RBAC from storage (src/registry/rbac/): the controller that reconciles the bootstrap policy and
 * the manifests into objects and makes the RBAC authorizer read them live, the escalation check
 * of RBAC writes, and the `poststarthook/rbac/bootstrap-roles` readiness check (ok at once
 * without storage, where the policy is the built-in one and the manifests).
 */
function installRBACStorage(config: Config, built: BuiltAuthorizer, logger: ApplyContext['logger']): void {
  // Escalation checks resolve rules through RBAC whatever the modes (upstream's rule resolver).
  const resolver = built.rbac?.authorizer ?? new RBACAuthorizer();
  const readiness = new BootstrapReadiness();
  // Added at New() so that it follows the storage checks in /readyz, as upstream's hook checks do.
  config.routeInstallers.push((server) => {
    const s = server as { addReadyzChecks?(...checks: ReturnType<typeof namedCheck>[]): void };
    s.addReadyzChecks?.(
      namedCheck('poststarthook/rbac/bootstrap-roles', async () => {
        if (config.storage || config.resources) await readiness.check();
      }),
    );
  });
  config.admissionPlugins.push(() =>
    newRBACEscalationCheck(
      () => resolver,
      () => built.authorizer,
    ),
  );
  config.controllers.push({
    name: 'rbac/bootstrap-roles',
    async run(registry, signal) {
      const store = (resource: string) => registry.store(rbacGroup, resource);
      const [Role, ClusterRole, RoleBinding, ClusterRoleBinding] = [
        store('roles'),
        store('clusterroles'),
        store('rolebindings'),
        store('clusterrolebindings'),
      ];
      if (!Role || !ClusterRole || !RoleBinding || !ClusterRoleBinding) {
        readiness.markDone(); // RBAC is not served: the built-in policy stays in force
        return;
      }
      const loader = built.rbac?.loader;
      const controller = new RBACPolicyController({
        stores: { Role, ClusterRole, RoleBinding, ClusterRoleBinding },
        authorizer: resolver,
        readiness,
        logger,
        ...(loader ? { loader } : {}),
      });
      if (loader) {
        const stop = loader.watch();
        signal.addEventListener('abort', stop, { once: true });
      }
      await controller.run(signal);
    },
  });
}

/** Flags whose presence turns the secure default's admin credential off. */
const secureDefaultFlags = [
  'authorization-mode',
  'authorization-policy-file',
  'authorization-webhook-config-file',
  'authorization-rbac-manifests',
  'anonymous-auth',
  'token-auth-file',
  'authentication-config',
  'authentication-token-webhook-config-file',
  'client-ca-file',
  'requestheader-client-ca-file',
  'oidc-issuer-url',
  'service-account-key-file',
  'service-account-issuer',
  'service-account-signing-key-file',
];
