// The serviceaccounts controller (kubernetes pkg/controller/serviceaccount/serviceaccounts_controller.go):
// every active namespace has a `default` ServiceAccount; one deleted is created again. Runs in
// process over the namespaces and serviceaccounts Stores, reacting to their watch events.

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { Store } from '../generic/store.ts';
import { Informer } from '../rbac/informer.ts';

export const defaultServiceAccountName = 'default';

export interface ServiceAccountsControllerOptions {
  namespaces: Store;
  serviceAccounts: Store;
  logger: { error(msg: string, kv?: Record<string, unknown>): void };
  /** The accounts every namespace gets (upstream's ServiceAccountsControllerOptions.ServiceAccounts). */
  names?: string[];
}

export class ServiceAccountsController {
  private readonly o: ServiceAccountsControllerOptions;
  private readonly namespaces: Informer;
  private readonly accounts: Informer;
  private scheduled = false;
  private syncing: Promise<void> = Promise.resolve();
  private signal?: AbortSignal;

  constructor(o: ServiceAccountsControllerOptions) {
    this.o = o;
    const onChange = () => this.schedule();
    this.namespaces = new Informer(o.namespaces, { onChange, logger: o.logger });
    this.accounts = new Informer(o.serviceAccounts, { onChange, logger: o.logger });
  }

  async run(signal: AbortSignal): Promise<void> {
    this.signal = signal;
    await Promise.all([this.namespaces.run(signal), this.accounts.run(signal)]);
  }

  /** Resolves once every active namespace seen so far has its accounts (tests). */
  async idle(): Promise<void> {
    await Promise.all([this.namespaces.synced, this.accounts.synced]);
    await this.syncing;
  }

  private schedule(): void {
    if (this.scheduled || !this.namespaces.hasSynced || !this.accounts.hasSynced) return;
    this.scheduled = true;
    this.syncing = this.syncing.then(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            this.scheduled = false;
            this.sync().then(resolve, (err: unknown) => {
              this.o.logger.error('Creating default service accounts failed', { err: String(err) });
              resolve();
            });
          }, 0),
        ),
    );
  }

  private async sync(): Promise<void> {
    if (this.signal?.aborted) return;
    for (const ns of this.namespaces.list()) {
      const name = ns.metadata.name ?? '';
      if ((ns.status as { phase?: string } | undefined)?.phase === 'Terminating' || ns.metadata.deletionTimestamp)
        continue;
      for (const sa of this.o.names ?? [defaultServiceAccountName]) {
        if (this.accounts.get(name, sa)) continue;
        try {
          await this.o.serviceAccounts.create(
            { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: name } },
            { namespace: name },
          );
        } catch (err) {
          // Already there (the cache lagged) or the namespace went away meanwhile.
          const reason = err instanceof StatusError ? err.status.reason : undefined;
          if (reason !== 'AlreadyExists' && reason !== 'NotFound' && reason !== 'Forbidden') throw err;
        }
      }
    }
  }
}
