// Moved to src/endpoints/discovery/discovery.ts (upstream k8s.io/apiserver/pkg/endpoints/discovery).
// This re-export keeps branches written against the old path building; import from there in new code.

/** @deprecated Import from src/endpoints/discovery/discovery.ts. */
export * from '../../endpoints/discovery/discovery.ts';
