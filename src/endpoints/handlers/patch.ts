// The patch handler (k8s.io/apiserver/pkg/endpoints/handlers/patch.go): JSON patch (RFC 6902, at
// most 10,000 operations), JSON merge patch, strategic merge patch (built-in kinds; custom
// resources get 415) and server-side apply (application/apply-patch+yaml, create on apply),
// each applied to the stored object inside the store's optimistic update loop, with the field
// manager recording who owns what (metadata.managedFields). Also the fieldManager helpers the
// create and update handlers share (handlers/create.go managerOrUserAgent).

import { parse as parseYAML, parseDocument } from 'yaml';
import { dropUnknownFields, readBody, type KindInfo } from './decode.ts';
import { addWarning } from '../request/warning.ts';
import { logRequestPatch } from '../../audit/context.ts';
import { newBadRequest, newInvalid, newNotFound } from '../apierrors.ts';
import type { RequestContext } from '../request/context.ts';
import { StatusError } from '../responsewriters/status.ts';
import type { KubeObject, Store, UpdateOptions } from '../../registry/generic/store.ts';
import { applyJSONPatch, decodePatch, JSONPatchError } from '../../util/patch/jsonpatch.ts';
import { applyMergePatch } from '../../util/patch/mergepatch.ts';
import { strategicMergePatch, StrategicMergePatchError } from '../../util/patch/strategicmerge.ts';
import { FieldManager, FieldManagerError, type ManagedObject } from '../../util/managedfields/fieldmanager.ts';
import type { TypeSchema } from '../../util/managedfields/schema.ts';
import { pathString } from '../../util/managedfields/fieldpath.ts';
import { forbidden, invalid, Path, required, tooLong, type ErrorList } from '../../util/validation/field.ts';
import { deepCopyJSONValue } from '../../util/deepcopy.ts';
import { mayExceedYAMLNestingDepth, maxNestingDepth, parseJSONWithinDepth } from '../../util/nesting-depth.ts';

export const JSONPatchType = 'application/json-patch+json';
export const MergePatchType = 'application/merge-patch+json';
export const StrategicMergePatchType = 'application/strategic-merge-patch+json';
export const ApplyYAMLPatchType = 'application/apply-patch+yaml';

/** maxJSONPatchOperations. */
const maxJSONPatchOperations = 10000;
/** validation.FieldManagerMaxLength. */
const fieldManagerMaxLength = 128;

export interface PatchScope {
  store: Store;
  maxRequestBodyBytes: number;
  /** Built-in kinds take strategic merge patches; custom resources do not. */
  strategicMergePatch: boolean;
  /** The kind's schema: patch strategies and merge keys, list and map types. */
  typeSchema?: TypeSchema;
  fieldManager: FieldManager;
  /** The kind's known fields: unknown ones in a patched object are dropped (fieldValidation). */
  kindInfo?: KindInfo;
  /**
   * The decode of a patched object in place of kindInfo's (a custom resource's schema coercion:
   * prune, default); answers the unknown field paths it dropped.
   */
  coerce?: (obj: KubeObject) => string[];
  /** Checks an apply configuration before it is merged (a custom resource's undeclared fields); throws FieldManagerError. */
  checkApplyConfiguration?: (patch: KubeObject) => void;
  /**
   * Top-level fields the strategy resets (rest.ResetFieldsStrategy: `status` on the main resource,
   * `spec` on /status): nobody comes to own them through this endpoint, so an apply configuration
   * loses them and a patched object keeps the stored values before the field manager sees it.
   */
  resetFields?: readonly string[];
}

/** The patch types a resource accepts, in upstream's order (its 415 lists them). */
export function patchTypes(strategic: boolean): string[] {
  return strategic
    ? [JSONPatchType, MergePatchType, StrategicMergePatchType, ApplyYAMLPatchType]
    : [JSONPatchType, MergePatchType, ApplyYAMLPatchType];
}

/** handlers/create.go managerOrUserAgent: the fieldManager, else the User-Agent up to its first `/`. */
export function managerOrUserAgent(manager: string, userAgent: string): string {
  if (manager) return manager;
  let out = '';
  for (const ch of userAgent.split('/')[0]!) {
    if (!isPrint(ch)) continue;
    if (new TextEncoder().encode(out + ch).length > fieldManagerMaxLength) break;
    out += ch;
  }
  return out;
}

// unicode.IsPrint for the characters that matter: controls and the separators other than space.
function isPrint(ch: string): boolean {
  return !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]|[\p{Zs}]/u.test(ch) || ch === ' ';
}

/** ValidateFieldManager. */
export function validateFieldManager(manager: string): ErrorList {
  const errs: ErrorList = [];
  const p = Path.of('fieldManager');
  if (manager.length > fieldManagerMaxLength) errs.push(tooLong(p, fieldManagerMaxLength));
  let i = 0;
  for (const ch of manager) {
    if (!isPrint(ch)) {
      const cp = ch.codePointAt(0)!;
      errs.push(
        invalid(p, manager, `invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${i})`),
      );
    }
    i += new TextEncoder().encode(ch).length;
  }
  return errs;
}

/** The manager of a create or update, with ValidateCreateOptions/ValidateUpdateOptions' check of the parameter. */
export function requestManager(ctx: RequestContext, kind: 'CreateOptions' | 'UpdateOptions'): string {
  const manager = ctx.url.searchParams.get('fieldManager') ?? '';
  const errs = validateFieldManager(manager);
  if (errs.length) throw newInvalid({ group: 'meta.k8s.io', kind }, '', errs);
  return managerOrUserAgent(manager, ctx.request.headers.get('user-agent') ?? '');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function goJSONType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** An error of the patch mechanism as handlers/patch.go answers it. */
function patchError(err: unknown): unknown {
  if (err instanceof JSONPatchError || (err instanceof StrategicMergePatchError && err.kind !== 'BadRequest'))
    return new StatusError({ status: 'Failure', message: err.message, reason: 'Invalid', code: 422 });
  if (err instanceof StrategicMergePatchError) return newBadRequest(err.message);
  if (err instanceof FieldManagerError) {
    if (err.code === 409)
      return new StatusError({
        status: 'Failure',
        message: err.message,
        reason: 'Conflict',
        details: {
          causes: err.conflicts!.map((c) => ({
            reason: 'FieldManagerConflict',
            message: `conflict with ${c.manager}`,
            field: pathString(c.path),
          })),
        },
        code: 409,
      });
    if (err.code === 400) return newBadRequest(err.message);
    return new StatusError({ status: 'Failure', message: err.message, reason: 'Invalid', code: 422 });
  }
  return err;
}

/** checkName: the patched object keeps the URL's name. */
function checkName(obj: KubeObject, name: string): void {
  const objName = obj.metadata?.name ?? '';
  if (objName !== name)
    throw newBadRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
}

/**
 * PatchResource: answers the patched (or, for apply, created) object and whether it was created.
 * Every failure is a StatusError with upstream's Status; nothing is written on failure.
 */
export async function patchResource(
  ctx: RequestContext,
  s: PatchScope,
  namespace: string,
  name: string,
  opts: UpdateOptions,
): Promise<{ object: KubeObject; created: boolean }> {
  const contentType = (ctx.request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const accepted = patchTypes(s.strategicMergePatch);
  if (!accepted.includes(contentType))
    throw new StatusError({
      status: 'Failure',
      message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  const bytes = await readBody(ctx, s.maxRequestBodyBytes);
  const q = ctx.url.searchParams;
  const fieldManagerParam = q.get('fieldManager') ?? '';
  const forceParam = q.get('force');
  const isApply = contentType === ApplyYAMLPatchType;
  let force = false;
  if (forceParam !== null) {
    if (!['1', 't', 'T', 'true', 'TRUE', 'True', '0', 'f', 'F', 'false', 'FALSE', 'False'].includes(forceParam))
      throw newBadRequest(`strconv.ParseBool: parsing ${JSON.stringify(forceParam)}: invalid syntax`);
    force = ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(forceParam);
  }
  // ValidatePatchOptions.
  const errs: ErrorList = [];
  if (isApply) {
    if (!fieldManagerParam) errs.push(required(Path.of('fieldManager'), 'is required for apply patch'));
  } else if (forceParam !== null) {
    errs.push(forbidden(Path.of('force'), 'may not be specified for non-apply patch'));
  }
  errs.push(...validateFieldManager(fieldManagerParam));
  if (errs.length) throw newInvalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', errs);
  const manager = managerOrUserAgent(fieldManagerParam, ctx.request.headers.get('user-agent') ?? '');
  const validation = q.get('fieldValidation') ?? '';
  if (validation !== '' && validation !== 'Ignore' && validation !== 'Warn' && validation !== 'Strict')
    throw newBadRequest(
      `fieldValidation: Invalid value: ${JSON.stringify(validation)}: fieldValidation must be one of "Ignore", "Strict", or "Warn"`,
    );
  const strict = validation === 'Strict';

  // validateAndTranscodePatch, then the mechanism's decoding.
  const text = new TextDecoder().decode(bytes);
  let patch: unknown;
  if (isApply) {
    let doc;
    if (mayExceedYAMLNestingDepth(text))
      throw newBadRequest(`error decoding patch: yaml: exceeded max depth of ${maxNestingDepth}`);
    try {
      doc = parseYAML(text, { uniqueKeys: false });
    } catch (err) {
      throw newBadRequest(`error decoding patch: ${yamlError(err)}`);
    }
    if (doc === null || doc === undefined) doc = {};
    if (!isObject(doc))
      throw newBadRequest(
        `error decoding patch: json: cannot unmarshal ${goJSONType(doc)} into Go value of type map[string]interface {}`,
      );
    if (strict) {
      const d = parseDocument(text, { uniqueKeys: true });
      const dup = d.errors.find((e) => e.code === 'DUPLICATE_KEY');
      if (dup)
        throw newBadRequest(`error strict decoding patch: yaml: unmarshal errors:\n  ${dup.message.split('\n')[0]}`);
    }
    patch = doc;
  } else {
    // validateAndTranscodePatch: json.Valid, whose scanner also refuses deep nesting.
    try {
      patch = parseJSONWithinDepth(text);
    } catch {
      throw newBadRequest('invalid JSON patch');
    }
  }
  // audit.LogRequestPatch: the patch as JSON (an apply's YAML transcoded).
  logRequestPatch(ctx, isApply ? JSON.stringify(patch) : text);
  let ops: ReturnType<typeof decodePatch> = [];
  if (contentType === JSONPatchType) {
    ops = decodePatch(patch);
    if (typeof ops === 'string') throw newBadRequest(ops);
    if (ops.length > maxJSONPatchOperations)
      throw new StatusError({
        status: 'Failure',
        message: `The allowed maximum operations in a JSON patch is ${maxJSONPatchOperations}, got ${ops.length}`,
        reason: 'RequestEntityTooLarge',
        code: 413,
      });
  } else if (!isApply && !isObject(patch)) {
    throw newBadRequest(`json: cannot unmarshal ${goJSONType(patch)} into Go value of type map[string]interface {}`);
  }

  const { store } = s;
  // The typed decode of a patched object: unknown fields go (a 422 with Strict, a warning with Warn).
  const decode = (out: KubeObject) => {
    const unknown = s.coerce ? s.coerce(out) : s.kindInfo ? dropUnknownFields(out, s.kindInfo) : [];
    if (unknown.length && strict) {
      const detail = `strict decoding error: ${unknown.map((u) => `unknown field ${JSON.stringify(u)}`).join(', ')}`;
      throw newInvalid({ group: '', kind: '' }, '', [invalid(Path.of('patch'), JSON.stringify(patch), detail)]);
    }
    if (validation !== 'Ignore') for (const u of unknown) addWarning(ctx, '', `unknown field ${JSON.stringify(u)}`);
  };
  const mechanism = (current: KubeObject | undefined): KubeObject => {
    let out: KubeObject;
    try {
      if (isApply) {
        s.checkApplyConfiguration?.(patch as KubeObject);
        const config = deepCopyJSONValue(patch) as Record<string, unknown>;
        for (const f of s.resetFields ?? []) delete config[f];
        out = s.fieldManager.apply(
          current as ManagedObject | undefined,
          config as ManagedObject,
          manager,
          force,
        ) as KubeObject;
      } else {
        if (!current) throw newNotFound(store.qualifiedResource, name);
        let patched: unknown;
        if (contentType === JSONPatchType)
          patched = applyJSONPatch(current as never, ops as Exclude<typeof ops, string>);
        else if (contentType === MergePatchType) patched = applyMergePatch(current as never, patch as never);
        else patched = strategicMergePatch(current as never, patch as never, s.typeSchema);
        if (!isObject(patched))
          throw new StatusError({
            status: 'Failure',
            message: 'patched object is not a JSON object',
            reason: 'Invalid',
            code: 422,
          });
        // A custom resource is decoded (pruned, defaulted) before its fields are recorded.
        if (s.coerce) decode(patched as KubeObject);
        resetTo(patched as KubeObject, current, s.resetFields);
        out = s.fieldManager.update(current as ManagedObject, patched as KubeObject, manager) as KubeObject;
      }
    } catch (err) {
      throw patchError(err);
    }
    out.metadata ??= {};
    if (isApply || !s.coerce) decode(out);
    // A patch without a resourceVersion applies to the object it was computed on.
    if (current && !out.metadata.resourceVersion) out.metadata.resourceVersion = current.metadata.resourceVersion;
    checkName(out, name);
    return out;
  };
  return store.update(name, mechanism, { ...opts, namespace, forceAllowCreate: isApply });
}

/** The reset fields of `obj` as they are in `current` (absent when absent there). */
export function resetTo(obj: KubeObject, current: KubeObject | undefined, fields: readonly string[] = []): void {
  for (const f of fields) {
    if (current && Object.hasOwn(current, f)) obj[f] = deepCopyJSONValue(current[f]);
    else delete obj[f];
  }
}

function yamlError(err: unknown): string {
  const m = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  return `yaml: ${m}`;
}
