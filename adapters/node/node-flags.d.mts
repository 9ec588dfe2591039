/** The Node (V8) flags the edge-apiserver bin runs with (node-flags.mjs). */
export declare const nodeFlags: readonly string[];
