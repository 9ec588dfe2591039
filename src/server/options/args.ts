// Splits a kube-apiserver flag string kept in one environment variable or Worker var into argv,
// so edge adapters parse exactly the flags the Node CLI parses. POSIX-shell quoting without
// expansion: whitespace separates words; '…' is literal; "…" keeps \" \\ \$ \` escapes; a
// backslash outside quotes escapes the next character. A value that is a JSON array of strings
// is taken as argv as is (handy for Worker vars, which may hold JSON).

export class ArgsSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgsSyntaxError';
  }
}

/** `--a=1 --b "x y"` → `['--a=1', '--b', 'x y']`; also accepts `string[]` and a JSON array string. */
export function splitArgs(input: string | readonly string[] | undefined | null): string[] {
  if (input == null) return [];
  if (typeof input !== 'string') return [...input];
  const trimmed = input.trim();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      parsed = undefined;
    }
    if (Array.isArray(parsed) && parsed.every((a) => typeof a === 'string')) return parsed as string[];
  }
  const out: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const n = input.length;
  while (i < n) {
    const ch = input[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      if (inWord) out.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (ch === "'") {
      const end = input.indexOf("'", i + 1);
      if (end < 0) throw new ArgsSyntaxError(`unterminated single quote at offset ${i}`);
      word += input.slice(i + 1, end);
      i = end + 1;
    } else if (ch === '"') {
      i++;
      for (;;) {
        if (i >= n) throw new ArgsSyntaxError('unterminated double quote');
        const c = input[i]!;
        if (c === '"') {
          i++;
          break;
        }
        if (c === '\\' && i + 1 < n && '"\\$`\n'.includes(input[i + 1]!)) {
          if (input[i + 1] !== '\n') word += input[i + 1];
          i += 2;
          continue;
        }
        word += c;
        i++;
      }
    } else if (ch === '\\') {
      if (i + 1 >= n) throw new ArgsSyntaxError('trailing backslash');
      // Backslash-newline is a line continuation, as in a shell script.
      if (input[i + 1] !== '\n') word += input[i + 1];
      else if (!word) inWord = false;
      i += 2;
    } else if (ch === '#' && !word) {
      // A comment runs to the end of the line (multi-line vars may document their flags).
      const end = input.indexOf('\n', i);
      inWord = false;
      i = end < 0 ? n : end;
    } else {
      word += ch;
      i++;
    }
  }
  if (inWord) out.push(word);
  return out;
}
