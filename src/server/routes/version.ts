// /version (k8s.io/apiserver/pkg/endpoints/discovery/version.go): version.Info as pretty JSON.

import type { Hono } from 'hono';
import type { APIEnv } from '../mux/container.ts';

/** k8s.io/apimachinery/pkg/version.Info; key order is the wire order. */
export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** The Kubernetes API level implemented (kube-apiserver v1.34); bump it with the upstream we follow. */
export const kubernetesVersion = { major: '1', minor: '34', patch: '0' } as const;

/** This project's version (package.json). */
export const projectVersion = '0.1.0';

/**
 * The default version.Info: the Kubernetes level we implement, with this project's version as
 * semver build metadata so `kubectl version` parses it (`v1.34.0+edge-apiserver.0.1.0`).
 */
export function defaultVersionInfo(platform = 'unknown/unknown'): VersionInfo {
  const runtime = typeof navigator !== 'undefined' && navigator.userAgent ? navigator.userAgent : 'unknown';
  return {
    major: kubernetesVersion.major,
    minor: kubernetesVersion.minor,
    emulationMajor: kubernetesVersion.major,
    emulationMinor: kubernetesVersion.minor,
    minCompatibilityMajor: kubernetesVersion.major,
    minCompatibilityMinor: String(Number(kubernetesVersion.minor) - 1),
    gitVersion: `v${kubernetesVersion.major}.${kubernetesVersion.minor}.${kubernetesVersion.patch}+edge-apiserver.${projectVersion}`,
    gitCommit: '',
    gitTreeState: '',
    buildDate: '',
    goVersion: runtime,
    compiler: 'typescript',
    platform,
  };
}

/** Installs GET /version (and /version/ through the container's trailing-slash trimming). */
export function installVersion(container: Hono<APIEnv>, info: VersionInfo): void {
  const ordered: Record<string, string> = {};
  for (const key of [
    'major',
    'minor',
    'emulationMajor',
    'emulationMinor',
    'minCompatibilityMajor',
    'minCompatibilityMinor',
    'gitVersion',
    'gitCommit',
    'gitTreeState',
    'buildDate',
    'goVersion',
    'compiler',
    'platform',
  ] as const) {
    const v = info[key];
    // The emulation/compatibility fields are omitempty upstream; the rest are always written.
    if (v !== undefined && (v !== '' || (!key.startsWith('emulation') && !key.startsWith('minCompatibility'))))
      ordered[key] = v;
  }
  const body = JSON.stringify(ordered, null, 2);
  container.get('/version', () => new Response(body, { headers: { 'content-type': 'application/json' } }));
}
