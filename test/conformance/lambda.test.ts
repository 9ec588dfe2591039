// Conformance target: AWS Lambda through synthetic events of each kind Hono's adapter accepts:
// API Gateway REST (v1), HTTP API (v2), function URLs (v2 shape) and ALB. In-process: the
// handler is called as the Lambda runtime would, and the result is turned back into a response.
import { createHandler } from '../../adapters/lambda/index.ts';
import { CLIENT_CERT_HEADER, conformanceSettings } from './setup.ts';
import {
  USER_AGENT,
  X509_USER,
  registerConformance,
  transportCase,
  type CaseRequest,
  type CaseResponse,
} from './cases.ts';
import { CLIENT_CERT_RFC9440 } from './fixtures.ts';

const handler = createHandler({ ...conformanceSettings(), clientCertHeader: CLIENT_CERT_HEADER });

type Kind = 'apigw-v1' | 'apigw-v2' | 'function-url' | 'alb';

function split(path: string): { rawPath: string; rawQuery: string; params: [string, string][] } {
  const u = new URL(path, 'https://x');
  return { rawPath: u.pathname, rawQuery: u.search.slice(1), params: [...u.searchParams] };
}

/** A synthetic event in the shape AWS documents for each integration. */
export function lambdaEvent(kind: Kind, req: CaseRequest): Record<string, unknown> {
  const method = req.method ?? 'GET';
  const headers: Record<string, string> = {
    'user-agent': USER_AGENT,
    host: 'apiserver.example.com',
    ...lower(req.headers),
  };
  const { rawPath, rawQuery, params } = split(req.path);
  const body = req.body ?? null;
  if (kind === 'apigw-v2' || kind === 'function-url') {
    const domainName =
      kind === 'function-url' ? 'abcdefgh.lambda-url.us-east-1.on.aws' : 'abc123.execute-api.us-east-1.amazonaws.com';
    return {
      version: '2.0',
      routeKey: kind === 'function-url' ? '$default' : 'ANY /{proxy+}',
      rawPath,
      rawQueryString: rawQuery,
      headers: { ...headers, host: domainName },
      queryStringParameters: params.length ? Object.fromEntries(params) : undefined,
      requestContext: {
        accountId: '123456789012',
        apiId: 'abc123',
        domainName,
        domainPrefix: domainName.split('.')[0],
        http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: USER_AGENT },
        requestId: 'req-1',
        routeKey: '$default',
        stage: '$default',
        time: '29/Nov/2026:17:00:00 +0000',
        timeEpoch: 1795971600000,
      },
      body,
      isBase64Encoded: false,
    };
  }
  const multiQuery: Record<string, string[]> = {};
  for (const [k, v] of params) (multiQuery[k] ??= []).push(v);
  if (kind === 'alb') {
    return {
      requestContext: {
        elb: {
          targetGroupArn: 'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/apiserver/0123456789abcdef',
        },
      },
      httpMethod: method,
      path: rawPath,
      queryStringParameters: Object.fromEntries(params.map(([k, v]) => [k, encodeURIComponent(v)])),
      headers: {
        ...headers,
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-proto': 'https',
        'x-forwarded-port': '443',
      },
      body: body ?? '',
      isBase64Encoded: false,
    };
  }
  return {
    version: '1.0',
    resource: '/{proxy+}',
    path: rawPath,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: params.length ? Object.fromEntries(params) : null,
    multiValueQueryStringParameters: params.length ? multiQuery : null,
    pathParameters: { proxy: rawPath.slice(1) },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authorizer: {},
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      extendedRequestId: 'ext-1',
      httpMethod: method,
      identity: { sourceIp: '203.0.113.9', userAgent: USER_AGENT },
      path: '/prod' + rawPath,
      protocol: 'HTTP/1.1',
      requestId: 'req-1',
      requestTime: '29/Nov/2026:17:00:00 +0000',
      requestTimeEpoch: 1795971600000,
      resourcePath: '/{proxy+}',
      stage: 'prod',
    },
    body,
    isBase64Encoded: false,
  };
}

function lower(h: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The Lambda result as a response (what API Gateway/ALB would send). */
export function fromResult(result: {
  statusCode: number;
  headers?: Record<string, string | string[]>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}): CaseResponse {
  const headers = new Headers();
  for (const [k, v] of Object.entries(result.headers ?? {})) for (const x of [v].flat()) headers.append(k, x);
  for (const [k, vs] of Object.entries(result.multiValueHeaders ?? {})) for (const x of vs) headers.append(k, x);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
  return { status: result.statusCode, headers, body };
}

for (const kind of ['apigw-v1', 'apigw-v2', 'function-url', 'alb'] as const) {
  registerConformance(
    `Lambda (${kind} events)`,
    {
      async start() {
        return async (req) => fromResult(await handler(lambdaEvent(kind, req) as never));
      },
    },
    [
      transportCase(
        'x509: the client certificate from the trusted header authenticates',
        { [CLIENT_CERT_HEADER]: CLIENT_CERT_RFC9440 },
        {
          user: X509_USER,
          peerCertificates: 1,
          forwardedHeaderSeen: null,
        },
      ),
      transportCase(
        'source IP and protocol from the event',
        {},
        {
          remoteAddress: '203.0.113.9',
          protocol: kind === 'alb' ? null : 'http/1.1',
          peerCertificates: 0,
        },
      ),
    ],
  );
}
