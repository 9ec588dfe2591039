// --token-auth-file (token/tokenfile): CSV `token,user,uid[,"group1,group2"]` read with Go
// encoding/csv rules (RFC 4180 quotes, variable field count, no trimming, bare quotes are errors).
// Errors name the file and line (`path:line: message`).

import type { UserInfo } from '../endpoints/request/context.ts';
import type { Logger } from '../util/logger.ts';
import { StaticTokenAuthenticator } from './static-token.ts';

export class CSVParseError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(startLine: number, line: number, column: number, err: string) {
    super(
      startLine !== line
        ? `record on line ${startLine}; parse error on line ${line}, column ${column}: ${err}`
        : `parse error on line ${line}, column ${column}: ${err}`,
    );
    this.line = line;
    this.column = column;
  }
}

const errBareQuote = 'bare " in non-quoted-field';
const errQuote = 'extraneous or missing " in quoted-field';

export interface CSVRecord {
  fields: string[];
  /** 1-based line the record starts on. */
  line: number;
}

/** Go encoding/csv Reader with FieldsPerRecord = -1, Comma ',', no comments, LazyQuotes false. */
export function readGoCSV(text: string): CSVRecord[] {
  const lines = text.split('\n');
  // A trailing newline does not start another line.
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const records: CSVRecord[] = [];
  let i = 0;
  const nextLine = (): string | undefined => {
    if (i >= lines.length) return undefined;
    let l = lines[i++]!;
    if (l.endsWith('\r')) l = l.slice(0, -1); // \r\n → \n
    return l;
  };
  for (;;) {
    let line = nextLine();
    if (line === undefined) break;
    if (line === '') continue; // blank lines are skipped
    const recLine = i;
    const fields: string[] = [];
    let pos = 0;
    parseFields: for (;;) {
      if (line[pos] !== '"') {
        const comma = line.indexOf(',', pos);
        const field = comma < 0 ? line.slice(pos) : line.slice(pos, comma);
        const q = field.indexOf('"');
        if (q >= 0) throw new CSVParseError(recLine, i, pos + q + 1, errBareQuote);
        fields.push(field);
        if (comma < 0) break;
        pos = comma + 1;
        continue;
      }
      // Quoted field, possibly spanning lines.
      let field = '';
      pos++;
      for (;;) {
        const q = line.indexOf('"', pos);
        if (q < 0) {
          field += line.slice(pos) + '\n';
          const next = nextLine();
          if (next === undefined) throw new CSVParseError(recLine, i, line.length + 1, errQuote);
          line = next;
          pos = 0;
          continue;
        }
        field += line.slice(pos, q);
        const after = line[q + 1];
        if (after === '"') {
          field += '"';
          pos = q + 2;
        } else if (after === ',') {
          fields.push(field);
          pos = q + 2;
          continue parseFields;
        } else if (after === undefined) {
          fields.push(field);
          break parseFields;
        } else {
          throw new CSVParseError(recLine, i, q + 2, errQuote);
        }
      }
    }
    records.push({ fields, line: recLine });
  }
  return records;
}

/** Parses a token file's text into token → user pairs; throws with `path:line:` on errors. */
export function parseTokenFile(text: string, path: string, logger?: Logger): Map<string, UserInfo> {
  let records: CSVRecord[];
  try {
    records = readGoCSV(text);
  } catch (err) {
    if (err instanceof CSVParseError) throw new Error(`${path}:${err.line}: ${err.message}`);
    throw err;
  }
  const tokens = new Map<string, UserInfo>();
  let recordNum = 0;
  for (const { fields, line } of records) {
    if (fields.length < 3) {
      throw new Error(
        `${path}:${line}: token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
      );
    }
    recordNum++;
    const [token, name, uid] = fields as [string, string, string];
    if (token === '') {
      logger?.warning(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (tokens.has(token))
      logger?.warning(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    const user: UserInfo = { name, uid };
    if (fields.length >= 4) user.groups = fields[3]!.split(',');
    tokens.set(token, user);
  }
  return tokens;
}

/** tokenfile.NewCSV. */
export async function newTokenFileAuthenticator(
  text: string,
  path: string,
  logger?: Logger,
): Promise<StaticTokenAuthenticator> {
  return StaticTokenAuthenticator.create(parseTokenFile(text, path, logger));
}
