import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  encodeStatus,
  errorNegotiated,
  httpError,
  internalError,
  newBadRequest,
  parseAccept,
  respondWithError,
} from './status.ts';
import { goQuote } from '../../util/go.ts';

test('compact Status: field order, metadata {}, trailing newline', () => {
  assert.equal(
    encodeStatus({ status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n',
  );
});

test('details: present-but-empty is {}, sub-field order name,group,kind', () => {
  assert.equal(
    encodeStatus({
      status: 'Failure',
      message: 'm',
      reason: 'Forbidden',
      details: { kind: 'pod', group: 'v2', name: 'n' },
      code: 403,
    }),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"Forbidden","details":{"name":"n","group":"v2","kind":"pod"},"code":403}\n',
  );
  assert.match(encodeStatus({ status: 'Failure', details: {}, code: 404 }), /"details":\{\},"code":404/);
});

test('HTML characters are escaped as Go does', () => {
  const body = encodeStatus({
    status: 'Failure',
    message: 'forbidden: User "NAME" cannot GET path "/&lt;script&gt;"',
    reason: 'Forbidden',
    details: {},
    code: 403,
  });
  assert.equal(
    body,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"NAME\\" cannot GET path \\"/\\u0026lt;script\\u0026gt;\\"","reason":"Forbidden","details":{},"code":403}\n',
  );
  assert.match(encodeStatus({ message: '<a>' }), /\\u003ca\\u003e/);
});

test('timeout filter form has no TypeMeta', () => {
  assert.equal(
    encodeStatus(
      {
        status: 'Failure',
        message: 'Timeout: request did not complete within the allotted timeout',
        reason: 'Timeout',
        details: {},
        code: 504,
      },
      false,
      false,
    ),
    '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n',
  );
});

test('pretty for curl/Wget/browsers and ?pretty=1; ?pretty=false beats curl', async () => {
  const status = newBadRequest('bad');
  const curl = errorNegotiated(status, new Request('https://x/a', { headers: { 'user-agent': 'curl/8.0' } }));
  assert.equal(
    await curl.text(),
    '{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n  "message": "bad",\n  "reason": "BadRequest",\n  "code": 400\n}',
  );
  const notPretty = errorNegotiated(
    status,
    new Request('https://x/a?pretty=false', { headers: { 'user-agent': 'curl/8.0' } }),
  );
  assert.ok((await notPretty.text()).endsWith('}\n'));
  const invalid = errorNegotiated(
    status,
    new Request('https://x/a?pretty=yes', { headers: { 'user-agent': 'Mozilla/5.0' } }),
  );
  assert.ok((await invalid.text()).endsWith('}\n'), 'an invalid ?pretty value is compact even for a browser');
  const param = errorNegotiated(
    status,
    new Request('https://x/a', { headers: { accept: 'application/json;pretty=1' } }),
  );
  assert.ok((await param.text()).startsWith('{\n'));
  assert.equal(param.status, 400);
  assert.equal(param.headers.get('content-type'), 'application/json');
  assert.equal(param.headers.get('x-content-type-options'), null, 'ErrorNegotiated sets no nosniff');
});

test('unacceptable Accept still answers JSON, pretty; Table clauses are skipped', async () => {
  const html = errorNegotiated(newBadRequest('x'), new Request('https://x/', { headers: { accept: 'text/html' } }));
  assert.equal(html.headers.get('content-type'), 'application/json');
  assert.ok((await html.text()).startsWith('{\n'));
  const kubectl = errorNegotiated(
    newBadRequest('x'),
    new Request('https://x/', { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } }),
  );
  assert.ok((await kubectl.text()).endsWith('}\n'));
});

test('Retry-After from details; respondWithError adds nosniff', () => {
  const r = respondWithError(
    { status: 'Failure', reason: 'ServiceUnavailable', details: { retryAfterSeconds: 5 }, code: 503 },
    new Request('https://x/'),
  );
  assert.equal(r.headers.get('retry-after'), '5');
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
});

test('httpError and internalError match Go text', async () => {
  const e = httpError('Too many requests, please try again later.', 429);
  assert.equal(e.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(await e.text(), 'Too many requests, please try again later.\n');
  const ie = internalError(
    new Request('https://x/api/v1/watch'),
    new Error('failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch'),
  );
  assert.equal(
    await ie.text(),
    'Internal Server Error: "/api/v1/watch": failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch\n',
  );
  const html = internalError(new Request('https://x/<a>?q="'), new Error('x'));
  assert.equal(await html.text(), 'Internal Server Error: "/%3Ca%3E?q=%22": x\n');
});

test('goQuote follows strconv.Quote', () => {
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote('\n\t\x01\x7f'), '"\\n\\t\\x01\\x7f"');
  assert.equal(goQuote('héllo'), '"héllo"');
});

test('Accept parsing sorts by q and specificity', () => {
  assert.deepEqual(
    parseAccept('text/*;q=0.5, application/json, */*;q=0.1').map((c) => `${c.type}/${c.subType}`),
    ['application/json', 'text/*', '*/*'],
  );
});
