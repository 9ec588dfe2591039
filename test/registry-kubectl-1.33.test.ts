// The registry's kubectl cases (registry-kubectl.test.ts) with kubectl 1.33, pinned beside 1.32.
(globalThis as { registryKubectlVersion?: string }).registryKubectlVersion = '1.33';
await import('./registry-kubectl.test.ts');
