// What the Worker build (wrangler.toml [alias]) uses instead of flag-usage.ts: no help text, the
// Worker never prints --help.

/** Flag name → usage: empty here. */
export const flagUsage: Readonly<Record<string, string>> = {};
