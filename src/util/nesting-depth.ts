// How deep a request body may nest arrays and objects. Go's encoding/json refuses more than
// 10,000 levels (encoding/json/scanner.go maxNestingDepth, "exceeded max depth"; goyaml: "exceeded
// max depth of 10000"), and Go's stacks grow, so kube-apiserver serves anything below. V8's stack
// is fixed (≈1 MB): structuredClone gives up near 3,300 levels, JSON.stringify near 4,100, the
// yaml package's parser near 900, a custom resource's pruning and validation near 1,600, and an
// overflow while V8 compiles a regular expression ends the process instead of throwing. So bodies
// nest at most 500 deep here, checked before anything walks them (docs/differences-parity.md).

export const maxNestingDepth = 500;

/** Whether a JSON text that parsed nests deeper than maxNestingDepth. */
export function exceedsJSONNestingDepth(text: string): boolean {
  // Deeper needs more than maxNestingDepth openers and as many closers.
  if (text.length <= 2 * maxNestingDepth) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: jump to its closing quote (one not escaped by an odd run of backslashes).
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return false;
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxNestingDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** JSON.parse, refusing a document nested deeper than maxNestingDepth as Go's scanner does. */
export function parseJSONWithinDepth(text: string): unknown {
  const v: unknown = JSON.parse(text);
  if (exceedsJSONNestingDepth(text)) throw new SyntaxError('exceeded max depth');
  return v;
}

/**
 * Whether a YAML text may nest deeper than maxNestingDepth, before it is parsed (the parser is
 * what overflows). An upper bound, never less than the real depth: flow brackets are counted
 * wherever they are (in quoted or plain scalars and comments too), and a line's block nesting is
 * at most its indentation plus its leading `- `/`? ` indicators plus one.
 */
export function mayExceedYAMLNestingDepth(text: string): boolean {
  if (text.length <= maxNestingDepth) return false;
  let flow = 0;
  for (let i = 0; i < text.length; i++) {
    // A line's block nesting: its indentation and leading `- `/`? ` indicators, plus one.
    let block = 1;
    for (; text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09; i++) block++;
    while ((text[i] === '-' || text[i] === '?') && text.charCodeAt(i + 1) === 0x20) {
      block++;
      for (i += 2; text.charCodeAt(i) === 0x20; i++);
    }
    if (block + flow > maxNestingDepth) return true;
    for (; i < text.length && text.charCodeAt(i) !== 0x0a; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5b || c === 0x7b) {
        if (block + ++flow > maxNestingDepth) return true;
      } else if ((c === 0x5d || c === 0x7d) && flow > 0) flow--;
    }
  }
  return false;
}
