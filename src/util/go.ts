// Go-compatible text helpers, so messages read as kube-apiserver's: strconv.Quote (%q),
// strconv.ParseBool, and the syscall errno texts os/net errors carry (`open /x: no such file or directory`).

/** Go's strconv.Quote (%q): double quotes with Go escapes for non-printable characters. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp >= 0x80 && cp <= 0x9f) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** strconv.ParseBool. */
export function parseGoBool(v: string): boolean | undefined {
  switch (v) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
  }
  return undefined;
}

/** syscall.Errno texts (Linux) for the codes Node reports. */
export const errnoText: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EEXIST: 'file exists',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
};

/** An fs error in Go's wording (`open /x: permission denied`, an os.PathError's text). */
export function goPathError(op: string, path: string, err: unknown): Error {
  const code = (err as { code?: unknown } | null)?.code;
  const text = (typeof code === 'string' && errnoText[code]) || (err instanceof Error ? err.message : String(err));
  return new Error(`${op} ${path}: ${text}`);
}
