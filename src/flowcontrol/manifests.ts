// Reads FlowSchema and PriorityLevelConfiguration manifests (YAML or JSON, several documents per
// file, `kind: List` accepted) for `--flowcontrol-config-file`. Problems are collected per
// object with the reason; good objects are kept, and the built-in ones always stay.

import { parseAllDocuments } from 'yaml';
import type { FileSystem } from '../util/filesystem.ts';
import type { RejectedObject } from './controller.ts';
import { flowcontrolGroupVersion, type FlowSchema, type PriorityLevelConfiguration } from './types.ts';

const manifestExt = /\.(ya?ml|json)$/i;

export interface FlowControlManifests {
  flowSchemas: FlowSchema[];
  priorityLevels: PriorityLevelConfiguration[];
  rejected: RejectedObject[];
}

/** Parses one manifest text; `source` names it in reasons. */
export function parseFlowControlManifests(
  text: string,
  source: string,
  into?: FlowControlManifests,
): FlowControlManifests {
  const out = into ?? { flowSchemas: [], priorityLevels: [], rejected: [] };
  const docs = parseAllDocuments(text, { prettyErrors: true });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    if (doc.errors.length) {
      const e = doc.errors[0]!;
      const line = e.linePos?.[0]?.line;
      const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      out.rejected.push({ kind: '', name: '', reason: `${source}${line ? `:${line}` : ''}: ${message}` });
      continue;
    }
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    addObject(value, source, out);
  }
  return out;
}

function addObject(value: unknown, source: string, out: FlowControlManifests): void {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) {
    out.rejected.push({ kind: '', name: '', reason: `${source}: not an object` });
    return;
  }
  const obj = value as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown }; items?: unknown };
  const name = typeof obj.metadata?.name === 'string' ? obj.metadata.name : '';
  if (obj.kind === 'List' || (typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj.items))) {
    for (const item of (obj.items as unknown[]) ?? []) addObject(item, source, out);
    return;
  }
  const kind = String(obj.kind ?? '');
  if (kind !== 'FlowSchema' && kind !== 'PriorityLevelConfiguration') {
    out.rejected.push({
      kind,
      name,
      reason: `${source}: ${kind ? `kind ${JSON.stringify(kind)} is not a flow-control object` : "Object 'Kind' is missing"}`,
    });
    return;
  }
  if (obj.apiVersion !== flowcontrolGroupVersion) {
    out.rejected.push({
      kind,
      name,
      reason: `${source}: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(String(obj.apiVersion ?? ''))}; use ${flowcontrolGroupVersion}`,
    });
    return;
  }
  if (kind === 'FlowSchema') out.flowSchemas.push(obj as unknown as FlowSchema);
  else out.priorityLevels.push(obj as unknown as PriorityLevelConfiguration);
}

/** Reads files or folders (their *.yaml, *.yml, *.json, sorted). */
export async function readFlowControlManifests(
  fs: FileSystem,
  paths: readonly string[],
): Promise<FlowControlManifests> {
  const out: FlowControlManifests = { flowSchemas: [], priorityLevels: [], rejected: [] };
  for (const path of paths) {
    const entries = fs.readDir ? await fs.readDir(path).catch(() => undefined) : undefined;
    const files = entries
      ? entries
          .filter((n) => manifestExt.test(n))
          .sort()
          .map((n) => `${path.replace(/\/+$/, '')}/${n}`)
      : [path];
    for (const file of files) {
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(await fs.readFile(file));
      } catch (err) {
        out.rejected.push({
          kind: '',
          name: '',
          reason:
            err instanceof TypeError ? `${file}: not valid UTF-8` : err instanceof Error ? err.message : String(err),
        });
        continue;
      }
      parseFlowControlManifests(text, file, out);
    }
  }
  return out;
}

/** What reloading needs to report through (a Logger, structurally). */
interface ReloadLogger {
  info(message: string, kv?: Record<string, unknown>, level?: number): void;
  error(message: string, kv?: Record<string, unknown>): void;
}

/**
 * Watches the manifests and reconfigures `fc` when they change (debounced). A file that cannot
 * be read or parsed keeps the configuration in force; objects with errors are rejected one by
 * one, as at start. Returns a function that stops watching.
 */
export async function watchFlowControlManifests(
  fs: FileSystem,
  paths: readonly string[],
  fc: { reconfigure(o: { flowSchemas: FlowSchema[]; priorityLevels: PriorityLevelConfiguration[] }): RejectedObject[] },
  logger: ReloadLogger,
  debounceMs = 200,
): Promise<() => void> {
  if (!fs.watch) return () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  let loading: Promise<void> = Promise.resolve();
  const reload = async () => {
    const m = await readFlowControlManifests(fs, paths);
    const fileErrors = m.rejected.filter((r) => r.kind === '');
    if (fileErrors.length) {
      for (const r of fileErrors)
        logger.error('Rejected flow-control manifests, keeping the configuration in force', { reason: r.reason });
      return;
    }
    for (const r of m.rejected) logger.error('Rejected flow-control object', { reason: r.reason });
    fc.reconfigure({ flowSchemas: m.flowSchemas, priorityLevels: m.priorityLevels });
    logger.info('Reloaded flow-control manifests', { paths: paths.join(',') }, 2);
  };
  const onChange = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      loading = loading
        .then(reload)
        .catch((err: unknown) => logger.error('Reloading flow-control manifests failed', { err: String(err) }));
    }, debounceMs);
  };
  const files: string[] = [];
  for (const p of paths) {
    const entries = fs.readDir ? await fs.readDir(p).catch(() => undefined) : undefined;
    if (entries)
      for (const n of entries.filter((x) => manifestExt.test(x))) files.push(`${p.replace(/\/+$/, '')}/${n}`);
    else files.push(p);
  }
  const stops = files.map((f) => fs.watch!(f, onChange));
  return () => {
    for (const s of stops) s();
    if (timer) clearTimeout(timer);
  };
}
