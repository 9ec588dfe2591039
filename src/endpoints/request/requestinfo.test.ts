import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestInfoFactory, RequestInfoError, isValidLabelSelector, parseQuery } from './requestinfo.ts';

const factory = new RequestInfoFactory({ apiPrefixes: ['api', 'apis'], grouplessAPIPrefixes: ['api'] });
const info = (method: string, url: string) => factory.newRequestInfo(new Request('https://h' + url, { method }));

// TestGetAPIRequestInfo success cases: method, url, verb, apiPrefix, group, version, namespace, resource, subresource, name, parts.
// (Upstream's table says "api" for /apis rows; the real value, asserted here, is "apis".)
const success: [string, string, string, string, string, string, string, string, string, string, string[]][] = [
  ['GET', '/api/v1/namespaces', 'list', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
  [
    'GET',
    '/api/v1/namespaces/other',
    'get',
    'api',
    '',
    'v1',
    'other',
    'namespaces',
    '',
    'other',
    ['namespaces', 'other'],
  ],
  ['GET', '/api/v1/namespaces/other/pods', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['GET', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['HEAD', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['GET', '/api/v1/namespaces/other/pods', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  // special verbs
  [
    'GET',
    '/api/v1/proxy/namespaces/other/pods/foo',
    'proxy',
    'api',
    '',
    'v1',
    'other',
    'pods',
    '',
    'foo',
    ['pods', 'foo'],
  ],
  [
    'GET',
    '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource',
    'proxy',
    'api',
    '',
    'v1',
    'other',
    'pods',
    '',
    'foo',
    ['pods', 'foo', 'subpath', 'not', 'a', 'subresource'],
  ],
  ['GET', '/api/v1/watch/pods', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=true', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/pods?watch=false', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods?watch=1', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  ['GET', '/api/v1/namespaces/other/pods?watch=0', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  // subresource identification
  [
    'GET',
    '/api/v1/namespaces/other/pods/foo/status',
    'get',
    'api',
    '',
    'v1',
    'other',
    'pods',
    'status',
    'foo',
    ['pods', 'foo', 'status'],
  ],
  [
    'GET',
    '/api/v1/namespaces/other/pods/foo/proxy/subpath',
    'get',
    'api',
    '',
    'v1',
    'other',
    'pods',
    'proxy',
    'foo',
    ['pods', 'foo', 'proxy', 'subpath'],
  ],
  [
    'PUT',
    '/api/v1/namespaces/other/finalize',
    'update',
    'api',
    '',
    'v1',
    'other',
    'namespaces',
    'finalize',
    'other',
    ['namespaces', 'other', 'finalize'],
  ],
  [
    'PUT',
    '/api/v1/namespaces/other/status',
    'update',
    'api',
    '',
    'v1',
    'other',
    'namespaces',
    'status',
    'other',
    ['namespaces', 'other', 'status'],
  ],
  // verb identification
  ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  [
    'DELETE',
    '/api/v1/namespaces/other/pods/foo',
    'delete',
    'api',
    '',
    'v1',
    'other',
    'pods',
    '',
    'foo',
    ['pods', 'foo'],
  ],
  ['POST', '/api/v1/namespaces/other/pods', 'create', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  // deletecollection verb identification
  ['DELETE', '/api/v1/nodes', 'deletecollection', 'api', '', 'v1', '', 'nodes', '', '', ['nodes']],
  ['DELETE', '/api/v1/namespaces', 'deletecollection', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
  ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
  [
    'DELETE',
    '/apis/extensions/v1/namespaces/other/pods',
    'deletecollection',
    'apis',
    'extensions',
    'v1',
    'other',
    'pods',
    '',
    '',
    ['pods'],
  ],
  // api group identification
  [
    'POST',
    '/apis/extensions/v1/namespaces/other/pods',
    'create',
    'apis',
    'extensions',
    'v1',
    'other',
    'pods',
    '',
    '',
    ['pods'],
  ],
  // api version identification
  [
    'POST',
    '/apis/extensions/v1beta3/namespaces/other/pods',
    'create',
    'apis',
    'extensions',
    'v1beta3',
    'other',
    'pods',
    '',
    '',
    ['pods'],
  ],
];

test('TestGetAPIRequestInfo: success cases', () => {
  for (const [
    method,
    url,
    verb,
    apiPrefix,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    subresource,
    name,
    parts,
  ] of success) {
    const got = info(method, url);
    assert.deepEqual(
      {
        isResourceRequest: got.isResourceRequest,
        verb: got.verb,
        apiPrefix: got.apiPrefix,
        apiGroup: got.apiGroup,
        apiVersion: got.apiVersion,
        namespace: got.namespace,
        resource: got.resource,
        subresource: got.subresource,
        name: got.name,
        parts: got.parts,
      },
      { isResourceRequest: true, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts },
      `${method} ${url}`,
    );
  }
});

test('TestGetAPIRequestInfo: non-resource cases', () => {
  for (const url of [
    '/',
    '/api/version/',
    '/apis/group/version/',
    '/badprefix/version/resource',
    '/apis/version/resource',
  ]) {
    assert.equal(info('GET', url).isResourceRequest, false, url);
  }
});

test('TestGetNonAPIRequestInfo', () => {
  const cases: [string, boolean][] = [
    ['/api/version/resource', true],
    ['/apis/group/version/resource/name/subresource', true],
    ['/api/version/resource/name/subresource', true],
    ['/apis/batch/v1/job', true],
    ['/apis/batch/v1/job/foo', true],
    ['/apis/batch/v1/job/foo/scale', true],
    ['/not-api/version/resource', false],
    ['/apis/extensions/v1beta1', false],
    ['/apis/extensions/v1beta1/', false],
    ['/api/version', false],
    ['/api', false],
    ['/', false],
    ['', false],
  ];
  for (const [url, expected] of cases) assert.equal(info('GET', url).isResourceRequest, expected, url);
});

test('TestFieldSelectorParsing', () => {
  const cases: [string, string, string][] = [
    ['/apis/group/version/resource', '', 'list'],
    ['/apis/group/version/resource?fieldSelector=metadata.name=name1', 'name1', 'list'],
    ['/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1', 'name1', 'watch'],
    ['/apis/group/version/resource?fieldSelector=foo=bar', '', 'list'],
    ['/apis/group/version/resource?fieldSelector=metadata.name=name1,foo', '', 'list'],
    ['/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true', '', 'watch'],
    ['/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false', '', 'list'],
  ];
  for (const [url, name, verb] of cases) {
    const got = info('GET', url);
    assert.equal(got.name, name, url);
    assert.equal(got.verb, verb, url);
  }
});

test('TestSelectorParsing: raw selectors recorded for list/watch/deletecollection only', () => {
  let got = info('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dfoo&labelSelector=app%3Dx');
  assert.equal(got.fieldSelector, 'spec.nodeName=foo');
  assert.equal(got.labelSelector, 'app=x');
  got = info('DELETE', '/api/v1/namespaces/ns/pods?labelSelector=app');
  assert.equal(got.verb, 'deletecollection');
  assert.equal(got.labelSelector, 'app');
  // Recorded even when it does not parse.
  got = info('GET', '/api/v1/pods?labelSelector=%21%21');
  assert.equal(got.labelSelector, '!!');
  // Named get, create and legacy watch prefix do not record.
  assert.equal(info('GET', '/api/v1/namespaces/ns/pods/p?labelSelector=a').labelSelector, '');
  assert.equal(info('POST', '/api/v1/namespaces/ns/pods?labelSelector=a').labelSelector, '');
  assert.equal(info('GET', '/api/v1/watch/pods?labelSelector=a').labelSelector, '');
});

test('metadata.name field selector edge cases', () => {
  const name = (q: string) => info('GET', '/api/v1/namespaces/ns/pods?' + q).name;
  assert.equal(name('fieldSelector=metadata.name==n1'), 'n1');
  assert.equal(name('fieldSelector=metadata.name!=n1'), '');
  // Terms are sorted: alpha wins over zeta.
  assert.equal(name('fieldSelector=metadata.name=zeta,metadata.name=alpha'), 'alpha');
  assert.equal(name('fieldSelector=spec.x=1,metadata.name=n2'), 'n2');
  // Not a valid path segment name.
  assert.equal(name('fieldSelector=metadata.name=..'), '');
  assert.equal(name('fieldSelector=metadata.name=a%25b'), '');
  // A bad label selector or limit resets the decoded options.
  assert.equal(name('fieldSelector=metadata.name=n1&labelSelector=a%20in'), '');
  assert.equal(name('fieldSelector=metadata.name=n1&limit=x'), '');
  assert.equal(name('fieldSelector=metadata.name=n1&timeoutSeconds='), '');
  assert.equal(name('fieldSelector=metadata.name=n1&limit=500&labelSelector=app%20in%20(a,b),!b'), 'n1');
  // Escaped values.
  assert.equal(name('fieldSelector=metadata.name=a\\,b'), 'a,b');
  assert.equal(name('fieldSelector=metadata.name=a\\xb'), '');
  // A named GET never becomes watch; ?watch= (empty) is true.
  assert.equal(info('GET', '/api/v1/namespaces/ns/pods/foo?watch=true').verb, 'get');
  assert.equal(info('GET', '/api/v1/pods?watch=').verb, 'watch');
  assert.equal(info('GET', '/api/v1/pods?watch=FALSE').verb, 'list');
  assert.equal(info('GET', '/api/v1/pods?watch=0&watch=1').verb, 'list');
  // Pairs containing ';' are dropped, '+' is a space.
  assert.equal(info('GET', '/api/v1/pods?watch=1;x').verb, 'list');
});

test('legacy watch/proxy prefix with nothing after it fails', () => {
  for (const url of ['/api/v1/watch', '/api/v1/proxy', '/apis/g/v1/watch', '/api/v1/watch?x=y']) {
    assert.throws(
      () => info('GET', url),
      (err: unknown) => {
        assert.ok(err instanceof RequestInfoError);
        assert.equal(err.message, `unable to determine kind and namespace from url, ${url}`);
        assert.equal(err.info.isResourceRequest, true);
        return true;
      },
    );
  }
});

test('PATCH of a namespace carries the namespace (current upstream)', () => {
  const got = info('PATCH', '/api/v1/namespaces/new-namespace');
  assert.equal(got.namespace, 'new-namespace');
  assert.equal(got.resource, 'namespaces');
  assert.equal(got.name, 'new-namespace');
});

test('TestSelectorParsing (upstream table)', () => {
  const cases: [string, string, string, string, string, string][] = [
    // method, url, name, verb, fieldSelector, labelSelector
    ['GET', '/apis/group/version/resource', '', 'list', '', ''],
    [
      'GET',
      '/apis/group/version/resource?fieldSelector=metadata.name=name1',
      'name1',
      'list',
      'metadata.name=name1',
      '',
    ],
    [
      'GET',
      '/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1',
      'name1',
      'watch',
      'metadata.name=name1',
      '',
    ],
    [
      'GET',
      '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux',
      '',
      'list',
      'foo=bar',
      'baz=qux',
    ],
    [
      'GET',
      '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo',
      '',
      'list',
      'metadata.name=name1,foo',
      '',
    ],
    [
      'GET',
      '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true',
      '',
      'watch',
      'metadata.name=name1,foo',
      '',
    ],
    [
      'GET',
      '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false',
      '',
      'list',
      'metadata.name=name1,foo',
      '',
    ],
    [
      'DELETE',
      '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux',
      '',
      'deletecollection',
      'foo=bar',
      'baz=qux',
    ],
    [
      'GET',
      '/apis/group/version/resource?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar&labelSelector=foo=bar&labelSelector=foo=baz',
      'foo',
      'list',
      'metadata.name=foo',
      'foo=bar',
    ],
    ['GET', '/apis/group/version/resource/name?fieldSelector=foo=bar&labelSelector=foo=bar', 'name', 'get', '', ''],
    [
      'GET',
      '/apis/group/version/watch/resource?fieldSelector=metadata.name=foo&labelSelector=foo=bar',
      '',
      'watch',
      '',
      '',
    ],
    [
      'GET',
      '/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo&labelSelector=foo=bar',
      'name',
      'watch',
      '',
      '',
    ],
  ];
  for (const [method, url, name, verb, fs, ls] of cases) {
    const got = info(method, url);
    assert.deepEqual(
      [got.name, got.verb, got.fieldSelector, got.labelSelector],
      [name, verb, fs, ls],
      `${method} ${url}`,
    );
  }
});

test('percent-decoding, empty segments, apiPrefix on short /apis paths, method case', () => {
  let got = info('GET', '/api/v1/namespaces/a%2Fb/pods');
  assert.equal(got.path, '/api/v1/namespaces/a/b/pods');
  assert.equal(got.namespace, 'a');
  assert.equal(got.resource, 'b');
  assert.equal(got.name, 'pods');
  got = info('GET', '/api/v1//pods');
  assert.deepEqual(got.parts, ['', 'pods']);
  assert.equal(got.resource, '');
  assert.equal(got.name, 'pods');
  got = info('GET', '/apis/apps/v1');
  assert.equal(got.isResourceRequest, false);
  assert.equal(got.apiPrefix, 'apis');
  got = info('OPTIONS', '/api/v1/pods');
  assert.equal(got.verb, '');
  got = info('POST', '/healthz');
  assert.equal(got.verb, 'post');
  assert.equal(got.isResourceRequest, false);
  // Anything after the subresource is kept in parts only.
  got = info('GET', '/api/v1/namespaces/ns/pods/p/log/extra');
  assert.equal(got.subresource, 'log');
  assert.deepEqual(got.parts, ['pods', 'p', 'log', 'extra']);
  // A very long path is just long.
  got = info('GET', '/api/v1/namespaces/ns/pods/' + 'x'.repeat(10000));
  assert.equal(got.name.length, 10000);
});

test('label selector grammar', () => {
  for (const ok of [
    '',
    'a',
    '!a',
    'a=b',
    'a==b',
    'a!=b',
    'a in (b,c)',
    'a notin (b)',
    'a,b=c',
    'x>1',
    'example.com/a=b',
    'a in ()',
    'a in (,b)',
    'a=',
    ' a = b ',
  ]) {
    assert.equal(isValidLabelSelector(ok), true, ok);
  }
  for (const bad of [
    '!!',
    'a in',
    'a=b c',
    'a b',
    ',',
    'a,',
    'x>y',
    'a=-b',
    'A_/b',
    'a/b/c',
    'a in (b',
    'a=(b)',
    '=b',
    '!a=b',
  ]) {
    assert.equal(isValidLabelSelector(bad), false, bad);
  }
});

test('parseQuery follows Go url.ParseQuery', () => {
  const q = parseQuery('?a=1&a=2&b=x+y&c=%zz&d;e=1&f');
  assert.deepEqual(q.get('a'), ['1', '2']);
  assert.deepEqual(q.get('b'), ['x y']);
  assert.equal(q.has('c'), false);
  assert.equal(q.has('d'), false);
  assert.deepEqual(q.get('f'), ['']);
});
