// FeatureOptions (k8s.io/apiserver/pkg/server/options/feature.go) as kube-apiserver shows them
// under "Features flags": --profiling, --contention-profiling, --enable-priority-and-fairness,
// plus ours: --flowcontrol-config-file (FlowSchema / PriorityLevelConfiguration manifests,
// since there is no etcd to create them in; reloaded when they change). ApplyTo builds
// config.flowControl when APF is on.

import type { Config } from '../config.ts';
import type { Flag, FlagSet } from './flags.ts';
import type { ApplyContext, OptionsGroup } from './options.ts';
import { FlowControl } from '../../flowcontrol/controller.ts';
import { readFlowControlManifests, watchFlowControlManifests } from '../../flowcontrol/manifests.ts';
import { newAPFConfigurationController } from '../controllers/apfconfiguration.ts';

export class FeatureOptions implements OptionsGroup {
  profiling!: Flag<boolean>;
  contentionProfiling!: Flag<boolean>;
  debugSocketPath!: Flag<string>;
  enablePriorityAndFairness!: Flag<boolean>;
  flowControlConfigFiles!: Flag<string[]>;

  addFlags(fs: FlagSet): void {
    fs.section('Features');
    this.contentionProfiling = fs.bool('contention-profiling', false);
    this.debugSocketPath = fs.string('debug-socket-path', '');
    this.enablePriorityAndFairness = fs.bool('enable-priority-and-fairness', true);
    this.flowControlConfigFiles = fs.stringSlice('flowcontrol-config-file', []);
    this.profiling = fs.bool('profiling', true);
  }

  validate(): string[] {
    return [];
  }

  async applyTo(config: Config, ctx: ApplyContext): Promise<void> {
    config.enableProfiling = this.profiling.value;
    if (this.debugSocketPath.value)
      ctx.logger.info('Ignoring --debug-socket-path: no profiling socket on this server', {
        path: this.debugSocketPath.value,
      });
    if (!this.enablePriorityAndFairness.value) {
      config.flowControl = undefined;
      return;
    }
    const manifests = this.flowControlConfigFiles.value.length
      ? await readFlowControlManifests(ctx.fileSystem, this.flowControlConfigFiles.value)
      : { flowSchemas: [], priorityLevels: [], rejected: [] };
    for (const r of manifests.rejected) ctx.logger.error('Rejected flow-control manifest', { reason: r.reason });
    const fc = new FlowControl({
      flowSchemas: manifests.flowSchemas,
      priorityLevels: manifests.priorityLevels,
      onRejected: (r) =>
        ctx.logger.error('Rejected flow-control object; the built-in configuration stays in force', {
          kind: r.kind,
          name: r.name,
          reason: r.reason,
        }),
    });
    fc.rejected.push(...manifests.rejected);
    config.flowControl = fc;
    // With storage, the objects live there (the manifests are written to it once at start).
    config.controllers.push(
      newAPFConfigurationController(fc, {
        flowSchemas: manifests.flowSchemas,
        priorityLevels: manifests.priorityLevels,
      }),
    );
    // Upstream's `priority-and-fairness-config-consumer` hook runs the config controller; ours
    // watches the manifests and reloads them. Only registered when there are manifests, so a
    // server that is never Run (fetch only) keeps green health checks; upstream's
    // `priority-and-fairness-filter` hook (watermarks) has no counterpart: they are kept lazily.
    const paths = this.flowControlConfigFiles.value;
    if (paths.length) {
      config.postStartHooks.set('priority-and-fairness-config-consumer', async (hookCtx) => {
        if (config.storage) return;
        const stop = await watchFlowControlManifests(ctx.fileSystem, paths, fc, ctx.logger);
        hookCtx.signal.addEventListener('abort', stop, { once: true });
      });
    }
  }
}
