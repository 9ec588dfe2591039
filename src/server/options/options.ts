// The option groups behind the command line, as kube-apiserver's ServerRunOptions: each group
// adds its flags to a named section, validates, and applies itself to the Config. Portable:
// the Node CLI and the edge adapters parse the same flag strings through this.

import type { Config } from '../config.ts';
import type { Logger } from '../../util/logger.ts';
import { FlagSet } from './flags.ts';
import { SecureServingOptions } from './serving.ts';
import { LogsOptions } from './logs.ts';
import { AuditOptions } from './audit.ts';
import { FeatureOptions } from './features.ts';
import { AuthenticationOptions } from './authentication.ts';
import { AuthorizationOptions } from './authorization.ts';
import { ServerRunOptions } from './run.ts';
import { EtcdOptions } from './etcd.ts';
import type { Platform } from '../platform.ts';
import { ExtraOptions } from './extra.ts';

/** What ApplyTo may use besides the Config: the platform's services and a logger. */
export interface ApplyContext extends Platform {
  logger: Logger;
}

/** One options struct (SecureServingOptions, AuthenticationOptions …). */
export interface OptionsGroup {
  addFlags(fs: FlagSet): void;
  /** Validation errors, upstream's wording; empty when valid. */
  validate(): string[];
  applyTo(config: Config, ctx: ApplyContext): void | Promise<void>;
}

/** utilerrors.NewAggregate formatting: one error as is, several as `[a, b]`. */
export function aggregateErrors(errors: string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/** The groups, in kube-apiserver's help order. Each issue adds its group here. */
export function newServerOptionGroups(): OptionsGroup[] {
  const serving = new SecureServingOptions();
  return [
    new ServerRunOptions(),
    new EtcdOptions(() => serving.certDirectory),
    serving,
    new AuditOptions(),
    new FeatureOptions(),
    new AuthenticationOptions(() => serving.certDirectory),
    new AuthorizationOptions(),
    new LogsOptions(),
    new ExtraOptions(),
  ];
}

export class ServerOptions {
  readonly groups: OptionsGroup[];
  readonly flags: FlagSet;
  constructor(groups: OptionsGroup[] = newServerOptionGroups(), command = 'edge-apiserver') {
    this.groups = groups;
    this.flags = new FlagSet(command);
    for (const g of groups) g.addFlags(this.flags);
  }
  /** The serving group: what it built (certificate files after parse, SecureServingInfo on the Config). */
  get secureServing(): SecureServingOptions | undefined {
    return this.groups.find((g): g is SecureServingOptions => g instanceof SecureServingOptions);
  }
  /** The authentication group: the authenticator config it produced (`authenticatorConfig`). */
  get authentication(): AuthenticationOptions | undefined {
    return this.groups.find((g): g is AuthenticationOptions => g instanceof AuthenticationOptions);
  }
  /** Parses argv; throws FlagError (bad flag) or HelpRequested. Returns positional arguments. */
  parse(args: readonly string[]): string[] {
    return this.flags.parse(args);
  }
  validate(): string[] {
    return this.groups.flatMap((g) => g.validate());
  }
  async applyTo(config: Config, ctx: ApplyContext): Promise<void> {
    // Storage is applied last, as kube-apiserver's buildGenericConfig does (after serving and auth).
    const last: OptionsGroup[] = this.groups.filter((g) => g instanceof EtcdOptions);
    for (const g of this.groups) if (!last.includes(g)) await g.applyTo(config, ctx);
    for (const g of last) await g.applyTo(config, ctx);
  }
}
