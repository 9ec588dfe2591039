// Name and label checks with upstream's messages (k8s.io/apimachinery/pkg/util/validation/validation.go,
// k8s.io/apimachinery/pkg/api/validate/content/{dns,kube}.go). Each returns the list of problems,
// empty when the value is valid.

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${labelKeyFmt})?`;
const configMapKeyFmt = '[-._a-zA-Z0-9]+';

const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const labelKeyRe = new RegExp(`^${labelKeyFmt}$`);
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const configMapKeyRe = new RegExp(`^${configMapKeyFmt}$`);

export const DNS1123LabelMaxLength = 63;
export const DNS1123SubdomainMaxLength = 253;
export const LabelValueMaxLength = 63;
const labelKeyMaxLength = 63;

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** The cheap yes/no form, for hot paths that do not need the messages. */
export function isDNS1123Subdomain(value: string): boolean {
  return value.length <= DNS1123SubdomainMaxLength && dns1123SubdomainRe.test(value);
}

export function validateDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123LabelMaxLength) errs.push(maxLenError(DNS1123LabelMaxLength));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label (length was checked above): it has dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          dns1123LabelFmt,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

export function validateDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!dns1123SubdomainRe.test(value))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        dns1123SubdomainFmt,
        'example.com',
      ),
    );
  return errs;
}

export function validateDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123LabelMaxLength) errs.push(maxLenError(DNS1123LabelMaxLength));
  if (!dns1035LabelRe.test(value))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        dns1035LabelFmt,
        'my-name',
        'abc-123',
      ),
    );
  return errs;
}

const labelKeyErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** IsQualifiedName: a label key, `[prefix/]name`. */
export function validateQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part ' + emptyError());
    else for (const msg of validateDNS1123Subdomain(prefix)) errs.push('prefix part ' + msg);
  } else {
    return [
      'a qualified name ' +
        regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part ' + emptyError());
  else if (name.length > labelKeyMaxLength) errs.push('name part ' + maxLenError(labelKeyMaxLength));
  if (!labelKeyRe.test(name))
    errs.push('name part ' + regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc'));
  return errs;
}

export function validateLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LabelValueMaxLength) errs.push(maxLenError(LabelValueMaxLength));
  if (!labelValueRe.test(value))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        labelValueFmt,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  return errs;
}

/** IsConfigMapKey: keys of ConfigMap and Secret data. */
export function validateConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!configMapKeyRe.test(value))
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        configMapKeyFmt,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/**
 * A ValidateNameFunc (k8s.io/apimachinery/pkg/api/validation/generic.go): `prefix` is true when the
 * value is a generateName, whose trailing '-' is allowed (maskTrailingDash).
 */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -1) + 'a' : name;
}

export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) =>
  validateDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) =>
  validateDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: ValidateNameFunc = (name, prefix) =>
  validateDNS1035Label(prefix ? maskTrailingDash(name) : name);
/** ValidateNamespaceName. */
export const validateNamespaceName = nameIsDNSLabel;

/** path.ValidatePathSegmentName (k8s.io/apimachinery/pkg/api/validation/path/name.go): names that fit in a URL path. */
export function validatePathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const ch of ['/', '%']) if (name.includes(ch)) errs.push(`may not contain '${ch}'`);
  return errs;
}
