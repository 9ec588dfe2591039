#!/usr/bin/env node
// Generates src/endpoints/openapi/definitions.generated.ts: the OpenAPI schemas of the built-in
// kinds this server serves (and the meta types they reference), as OpenAPI v3 schema objects in
// upstream's shape (`$ref: '#/components/schemas/<name>'`, `allOf: [{$ref}]` when a reference has
// siblings, int-or-string and quantity as `oneOf`, every `x-kubernetes-*` extension kept).
//
// Input: upstream's published spec of the release we follow, kubernetes/kubernetes
// `api/openapi-spec/swagger.json` at v1.34 (every definition of every group, with descriptions):
//
//   node scripts/gen-openapi.mjs [path/to/swagger.json]
//   node scripts/gen-openapi.mjs --reencode   (rewrite the generated file from itself, after a
//                                              change of its encoding; no download)
//
// Without a path it downloads
// https://raw.githubusercontent.com/kubernetes/kubernetes/v1.34.0/api/openapi-spec/swagger.json.
// The per-group-version v3 files (`api/openapi-spec/v3/*.json`) hold the same definitions; they add
// `default` values, which no client of this server reads and which are left out here.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = 'https://raw.githubusercontent.com/kubernetes/kubernetes/v1.34.0/api/openapi-spec/swagger.json';
const OUT = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'src',
  'endpoints',
  'openapi',
  'definitions.generated.ts',
);

/** The kinds served (or read by other packages), by definition name; their references follow. */
const roots = [
  // core/v1
  ...['Namespace', 'ConfigMap', 'Secret', 'ServiceAccount', 'Service', 'Event', 'Endpoints'].flatMap((k) => [
    `io.k8s.api.core.v1.${k}`,
    `io.k8s.api.core.v1.${k === 'Endpoints' ? 'EndpointsList' : `${k}List`}`,
  ]),
  'io.k8s.api.coordination.v1.Lease',
  'io.k8s.api.coordination.v1.LeaseList',
  ...['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].flatMap((k) => [
    `io.k8s.api.rbac.v1.${k}`,
    `io.k8s.api.rbac.v1.${k}List`,
  ]),
  ...['FlowSchema', 'PriorityLevelConfiguration'].flatMap((k) => [
    `io.k8s.api.flowcontrol.v1.${k}`,
    `io.k8s.api.flowcontrol.v1.${k}List`,
  ]),
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList',
  'io.k8s.api.authentication.v1.TokenReview',
  'io.k8s.api.authentication.v1.TokenRequest',
  'io.k8s.api.authentication.v1.SelfSubjectReview',
  'io.k8s.api.authorization.v1.SubjectAccessReview',
  'io.k8s.api.authorization.v1.LocalSubjectAccessReview',
  'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
  'io.k8s.api.authorization.v1.SelfSubjectRulesReview',
  'io.k8s.api.events.v1.Event',
  'io.k8s.api.events.v1.EventList',
  // The scale subresource of custom resources.
  'io.k8s.api.autoscaling.v1.Scale',
  // What every group version's document references.
  ...['ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'Patch', 'WatchEvent', 'APIResourceList'].map(
    (k) => `io.k8s.apimachinery.pkg.apis.meta.v1.${k}`,
  ),
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions',
];

const V2REF = '#/definitions/';
const V3REF = '#/components/schemas/';

/** kube-openapi's v3 forms of the two types whose v2 form is `type: string` with a format. */
const v3OneOf = {
  'int-or-string': [{ type: 'integer' }, { type: 'string' }],
  quantity: [{ type: 'string' }, { type: 'number' }],
};

function toV3(schema) {
  if (Array.isArray(schema)) return schema.map(toV3);
  if (!schema || typeof schema !== 'object') return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref') continue;
    if (k === 'x-kubernetes-group-version-kind' || k === 'enum' || k === 'required') out[k] = v;
    else if (k === 'properties' || k === 'patternProperties' || k === 'definitions')
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, toV3(s)]));
    else out[k] = toV3(v);
  }
  if (typeof schema.$ref === 'string') {
    const ref = { $ref: V3REF + schema.$ref.slice(V2REF.length) };
    // A reference with siblings is wrapped in allOf in v3 (kube-openapi builder3).
    return Object.keys(out).length === 0 ? ref : { allOf: [ref], ...out };
  }
  if (out.type === 'string' && v3OneOf[out.format]) {
    delete out.type;
    out.oneOf = v3OneOf[out.format];
  }
  return out;
}

function refsOf(schema, into) {
  JSON.stringify(schema, (k, v) => {
    if (k === '$ref' && typeof v === 'string') into.add(v.slice(V2REF.length));
    return v;
  });
}

/**
 * The parameters of upstream's REST operations, read off the ConfigMap paths (every resource's
 * operations take the same ones): key → the swagger 2.0 parameter object, `$ref`s resolved.
 */
function pickParameters(swagger) {
  const resolve = (p) => (p.$ref ? swagger.parameters[p.$ref.slice('#/parameters/'.length)] : p);
  const ops = {
    collection: swagger.paths['/api/v1/namespaces/{namespace}/configmaps'],
    item: swagger.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'],
  };
  const out = {};
  const take = (key, list, name) => {
    const p = list.map(resolve).find((x) => x.name === name);
    if (!p) throw new Error(`upstream spec has no parameter ${name}`);
    out[key] = p;
  };
  for (const p of ops.collection.parameters.map(resolve)) out[p.name] = p;
  for (const p of ops.collection.get.parameters.map(resolve)) out[p.name] = p;
  for (const p of ops.collection.delete.parameters.map(resolve)) if (p.in !== 'body') out[p.name] = p;
  for (const p of ops.collection.post.parameters.map(resolve)) if (p.in !== 'body') out[p.name] = p;
  take('fieldManagerPatch', ops.item.patch.parameters, 'fieldManager');
  take('force', ops.item.patch.parameters, 'force');
  return out;
}

/**
 * The definitions as JSON with every description replaced by a number (0: the next entry of
 * `descriptions`; n > 0: descriptions[n - 1] again), and the descriptions, each once, in document
 * order. Descriptions are ~70 % of the bytes; apart from the structure each stream compresses
 * better, and a text repeated 46 times (apiVersion, kind) is written once. The parameters' texts
 * join the same list (several are DeleteOptions' field descriptions), always as n > 0, so they
 * decode in any order. schemas.ts puts them back (parseWithDescriptions).
 */
function encodeDescriptions(defs, params) {
  const descriptions = [];
  const seen = new Map();
  const index = (v) => {
    let i = seen.get(v);
    if (i === undefined) {
      i = descriptions.length;
      seen.set(v, i);
      descriptions.push(v);
    }
    return i;
  };
  const isText = (k, v) => k === 'description' && typeof v === 'string';
  const json = JSON.stringify(defs, (k, v) => {
    if (!isText(k, v)) return v;
    const n = descriptions.length;
    const i = index(v);
    return i === n ? 0 : i + 1;
  });
  const paramsJSON = JSON.stringify(params, (k, v) => (isText(k, v) ? index(v) + 1 : v));
  return { json, paramsJSON, descriptions };
}

function write(out, params) {
  const { json, paramsJSON, descriptions } = encodeDescriptions(out, params);
  if (descriptions.some((d) => d.includes('\0'))) throw new Error('a description contains NUL');
  const ts = [
    '// Code generated by scripts/gen-openapi.mjs from kubernetes/kubernetes v1.34',
    '// api/openapi-spec/swagger.json. DO NOT EDIT.',
    '// prettier-ignore',
    `export const definitionCount = ${Object.keys(out).length};`,
    '/**',
    ' * Definition name → OpenAPI v3 schema object, one JSON string (parsed on first use), each',
    ' * `description` a number: 0 takes the next entry of `descriptions`, n > 0 repeats descriptions[n - 1].',
    ' */',
    '// prettier-ignore',
    `export const definitionsJSON = ${JSON.stringify(json)};`,
    '/**',
    ' * The descriptions of definitionsJSON and parametersJSON, each once, in document order,',
    ' * NUL-separated (one string literal: quicker to load than an array of 600).',
    ' */',
    '// prettier-ignore',
    `export const descriptionsText = ${JSON.stringify(descriptions.join('\0'))};`,
    '/**',
    ' * The query and path parameters of the REST operations (name → swagger 2.0 parameter, descriptions',
    ' * as upstream), each `description` a number n: descriptions[n - 1].',
    ' */',
    '// prettier-ignore',
    `export const parametersJSON = ${JSON.stringify(paramsJSON)};`,
    '',
  ].join('\n');
  writeFileSync(OUT, ts);
  process.stdout.write(
    `${Object.keys(out).length} definitions, ${json.length} bytes of JSON, ${descriptions.length} descriptions → ${OUT}\n`,
  );
}

/** --reencode: the generated file's own content, decoded as schemas.ts does. */
async function reencode() {
  const gen = await import(OUT);
  const { parseWithDescriptions } = await import(join(dirname(OUT), 'schemas.ts'));
  write(parseWithDescriptions(gen.definitionsJSON), parseWithDescriptions(gen.parametersJSON));
}

async function main() {
  const arg = process.argv[2];
  if (arg === '--reencode') return reencode();
  const text = arg ? readFileSync(arg, 'utf8') : await (await fetch(SOURCE)).text();
  const swagger = JSON.parse(text);
  const defs = swagger.definitions;
  const picked = new Set();
  const queue = [...roots];
  while (queue.length) {
    const name = queue.pop();
    if (picked.has(name)) continue;
    if (!defs[name]) throw new Error(`upstream spec has no definition ${name}`);
    picked.add(name);
    const refs = new Set();
    refsOf(defs[name], refs);
    queue.push(...refs);
  }
  const out = {};
  for (const name of [...picked].sort()) out[name] = toV3(defs[name]);
  write(out, pickParameters(swagger));
}

await main();
