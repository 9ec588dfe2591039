// The Node (V8) flags the `edge-apiserver` bin runs with (its `#!` line, `npm start` and its
// re-run under the repository's Node repeat them: those cannot import this file). Benchmarks and
// tests that start the CLI's server use these. docs/node.md "Node flags" has the figures.
//
// --max-semi-space-size=32 (MiB, default 16): a request's objects mostly die young, and under a
//   flood they live for a few event-loop turns; a larger young generation keeps them out of the
//   old one.
// --heap-growing-percent=50: the old generation is collected when it has grown by half (V8 lets
//   a small heap grow up to four times). Node makes every HTTP/2 header value an external string
//   born in the old generation; under a flood each old-generation pause finalises every one made
//   since the last, so rarer collections are longer pauses (bench/apf.ts flood B).
export const nodeFlags = Object.freeze(['--max-semi-space-size=32', '--heap-growing-percent=50']);
