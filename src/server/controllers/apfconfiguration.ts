// The flow-control configuration controllers over storage (upstream: the apf bootstrap ensurer,
// pkg/registry/flowcontrol/ensurer, and the priority-and-fairness-config-consumer,
// k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go): the bootstrap objects are ensured in
// storage (mandatory ones always, suggested ones while `apf.kubernetes.io/autoupdate-spec` is
// "true"), `--flowcontrol-config-file` objects are written there too, the live objects
// reconfigure the filter, and each FlowSchema's `Dangling` condition says whether its priority
// level exists. Object counts for LIST work estimates come from storage (ObjectCountTracker).

import type { FlowControl } from '../../flowcontrol/controller.ts';
import {
  mandatoryFlowSchemaNames,
  mandatoryFlowSchemas,
  mandatoryPriorityLevelNames,
  mandatoryPriorityLevels,
  suggestedFlowSchemas,
  suggestedPriorityLevels,
} from '../../flowcontrol/bootstrap.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../../flowcontrol/types.ts';
import { StatusError } from '../../endpoints/responsewriters/status.ts';
import { flowcontrolGroup } from '../../registry/flowcontrol/resources.ts';
import type { KubeObject, Store } from '../../registry/generic/store.ts';
import { formatTime } from '../../util/metatime.ts';
import type { ResourceRegistry } from '../../registry/rest/registry.ts';
import { sameJSON } from '../../util/validation/objectmeta.ts';
import { listAndWatch, unrefTimer, type Controller } from './controller.ts';
import { deepCopyJSON } from '../../util/deepcopy.ts';

const autoUpdateAnnotation = 'apf.kubernetes.io/autoupdate-spec';
/** Upstream's object count refresh period (storage object count tracker). */
const objectCountIntervalMs = 60_000;

type ConfigObject = FlowSchema | PriorityLevelConfiguration;

export interface APFConfigurationOptions {
  /** `--flowcontrol-config-file` objects, written to storage at start. */
  flowSchemas?: FlowSchema[];
  priorityLevels?: PriorityLevelConfiguration[];
}

export function newAPFConfigurationController(fc: FlowControl, opts: APFConfigurationOptions = {}): Controller {
  return {
    name: 'priority-and-fairness-config-consumer',
    async run(registry, signal, logger) {
      const fss = registry.store(flowcontrolGroup, 'flowschemas');
      const pls = registry.store(flowcontrolGroup, 'prioritylevelconfigurations');
      if (!fss || !pls) return;
      await ensure(pls, mandatoryPriorityLevels(), suggestedPriorityLevels(), opts.priorityLevels ?? []);
      await ensure(fss, mandatoryFlowSchemas(), suggestedFlowSchemas(), opts.flowSchemas ?? []);
      startObjectCounts(fc, registry, signal);

      const live = { fs: new Map<string, FlowSchema>(), pl: new Map<string, PriorityLevelConfiguration>() };
      let pending: ReturnType<typeof setTimeout> | undefined;
      // Nothing is decided before both kinds are listed (upstream waits for its informers to
      // sync): a FlowSchema seen before the levels' list would be marked Dangling for a moment.
      let synced = false;
      // One reconfiguration per burst of changes.
      const schedule = () => {
        if (!synced) return;
        pending ??= setTimeout(() => {
          pending = undefined;
          if (signal.aborted) return;
          const rejected = fc.reconfigure({
            flowSchemas: [...live.fs.values()].filter((o) => !mandatoryFlowSchemaNames.has(o.metadata.name)),
            priorityLevels: [...live.pl.values()].filter((o) => !mandatoryPriorityLevelNames.has(o.metadata.name)),
          });
          for (const r of rejected) logger.info('Flow-control object not in force', { ...r }, 2);
          void updateDangling(fss, live.fs, live.pl).catch((err: unknown) =>
            logger.error('Writing FlowSchema status failed', { err: String(err) }),
          );
        }, 20);
      };
      signal.addEventListener('abort', () => clearTimeout(pending), { once: true });
      const follow = <T extends ConfigObject>(store: Store, into: Map<string, T>) =>
        listAndWatch(store, '', signal, (type, obj) => {
          const name = obj.metadata.name!;
          if (type === 'DELETED') into.delete(name);
          else into.set(name, obj as unknown as T);
          schedule();
        });
      const [fsList, plList] = await Promise.all([
        fss.list('', { resourceVersion: '' }),
        pls.list('', { resourceVersion: '' }),
      ]);
      for (const o of fsList.items) live.fs.set(o.metadata.name!, o as unknown as FlowSchema);
      for (const o of plList.items) live.pl.set(o.metadata.name!, o as unknown as PriorityLevelConfiguration);
      synced = true;
      schedule();
      await Promise.all([follow(fss, live.fs), follow(pls, live.pl)]);
    },
  };
}

/** strconv.ParseBool. */
function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/**
 * The ensurer (pkg/registry/flowcontrol/ensurer/strategy.go): a missing object is created; a
 * mandatory one always gets the bootstrap spec; a suggested one only while its
 * `apf.kubernetes.io/autoupdate-spec` annotation says true (or, without a boolean there, while
 * its generation is 1: nobody changed it), and the annotation is set to what was decided. A
 * conflict is left for the next start. Then RemoveUnwantedObjects: objects annotated true whose
 * names upstream no longer ships are deleted. Configured (`--flowcontrol-config-file`) objects
 * are written as given.
 */
async function ensure(
  store: Store,
  mandatory: ConfigObject[],
  suggested: ConfigObject[],
  configured: ConfigObject[],
): Promise<void> {
  const get = async (name: string) => {
    try {
      return await store.get('', name);
    } catch (err) {
      if (err instanceof StatusError && err.status.reason === 'NotFound') return undefined;
      throw err;
    }
  };
  const create = async (want: ConfigObject): Promise<boolean> => {
    try {
      await store.create(deepCopyJSON(want) as unknown as KubeObject, { namespace: '' });
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.status.reason === 'AlreadyExists') return false;
      throw err;
    }
  };
  const update = async (name: string, next: KubeObject) => {
    try {
      await store.update(name, next, { namespace: '' });
    } catch (err) {
      if (!(err instanceof StatusError && err.status.reason === 'Conflict')) throw err;
    }
  };
  const ensureOne = async (want: ConfigObject, alwaysAutoUpdate: boolean) => {
    const name = want.metadata.name;
    let existing = await get(name);
    if (!existing && (await create(want))) return;
    existing ??= await get(name);
    if (!existing) return;
    const annotation = existing.metadata.annotations?.[autoUpdateAnnotation];
    const autoUpdate = alwaysAutoUpdate || (parseBool(annotation) ?? existing.metadata.generation === 1);
    const updateAnnotation = annotation !== String(autoUpdate);
    const specChanged = autoUpdate && !sameJSON(existing.spec, want.spec);
    if (!updateAnnotation && !specChanged) return;
    const next = deepCopyJSON(existing);
    if (specChanged) next.spec = deepCopyJSON(want.spec);
    if (updateAnnotation)
      next.metadata.annotations = { ...next.metadata.annotations, [autoUpdateAnnotation]: String(autoUpdate) };
    await update(name, next);
  };
  for (const o of mandatory) await ensureOne(o, true);
  for (const o of suggested) await ensureOne(o, false);
  const wanted = new Set([...mandatory, ...suggested].map((o) => o.metadata.name));
  for (const o of (await store.list('', { recursive: true })).items) {
    const name = o.metadata.name!;
    if (wanted.has(name) || parseBool(o.metadata.annotations?.[autoUpdateAnnotation]) !== true) continue;
    if (configured.some((c) => c.metadata.name === name)) continue;
    try {
      await store.delete(name, { namespace: '' });
    } catch (err) {
      if (!(err instanceof StatusError && err.status.reason === 'NotFound')) throw err;
    }
  }
  // A configured object the API refuses stays out (the filter already reported it as rejected).
  for (const o of configured) {
    const put = async () => {
      const existing = await get(o.metadata.name);
      if (!existing) return void (await create(o));
      if (sameJSON(existing.spec, o.spec)) return;
      const next = deepCopyJSON(o) as unknown as KubeObject;
      next.metadata = {
        ...existing.metadata,
        annotations: { ...existing.metadata.annotations, ...o.metadata.annotations },
      };
      await store.update(o.metadata.name, next, { namespace: '' });
    };
    await put().catch(() => {});
  }
}

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The `Dangling` condition of every FlowSchema whose reference changed state (apf_controller.go). */
async function updateDangling(
  store: Store,
  flowSchemas: ReadonlyMap<string, FlowSchema>,
  priorityLevels: ReadonlyMap<string, PriorityLevelConfiguration>,
): Promise<void> {
  for (const fs of flowSchemas.values()) {
    const plName = fs.spec.priorityLevelConfiguration.name;
    const missing = !priorityLevels.has(plName);
    const want: Condition = missing
      ? {
          type: 'Dangling',
          status: 'True',
          reason: 'NotFound',
          message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} but there is no such object`,
        }
      : {
          type: 'Dangling',
          status: 'False',
          reason: 'Found',
          message: 'This FlowSchema references an existing PriorityLevelConfiguration object',
        };
    const conditions = ((fs as { status?: { conditions?: Condition[] } }).status?.conditions ?? []) as Condition[];
    const have = conditions.find((c) => c.type === 'Dangling');
    if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) continue;
    want.lastTransitionTime = have?.status === want.status ? have.lastTransitionTime : formatTime(new Date());
    try {
      await store.storage.guaranteedUpdate(store.key('', fs.metadata.name), false, undefined, (input) => {
        const next = deepCopyJSON(input) as KubeObject & { status?: { conditions?: Condition[] } };
        const rest = (next.status?.conditions ?? []).filter((c) => c.type !== 'Dangling');
        next.status = { ...next.status, conditions: [...rest, want] };
        delete next.metadata.resourceVersion;
        return { object: next };
      });
    } catch (err) {
      if (!(err instanceof StatusError && err.status.reason === 'NotFound')) throw err;
    }
  }
}

/** Object counts per resource for LIST estimates, refreshed every minute. */
function startObjectCounts(fc: FlowControl, registry: ResourceRegistry, signal: AbortSignal): void {
  const counts = new Map<string, number>();
  const refresh = async () => {
    for (const { store } of registry.list()) {
      const { group, resource } = store.qualifiedResource;
      try {
        counts.set(`${resource}.${group}`, (await store.storage.stats()).objectCount);
      } catch {
        // Keep the last count.
      }
    }
  };
  fc.setObjectCounter((group, resource) => counts.get(`${resource}.${group}`));
  void refresh();
  const timer = unrefTimer(setInterval(() => void refresh(), objectCountIntervalMs));
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
}
