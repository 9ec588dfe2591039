// Unions and the authenticated-group adder (request/union, token/union, group/authenticated_group_adder).
// Composition as kubernetes/kubernetes pkg/kubeapiserver/authenticator/config.go.

import type { RequestContext } from '../endpoints/request/context.ts';
import {
  authenticate,
  authenticateToken,
  type AuthenticatorResponse,
  type MaybeAuthenticated,
  type RequestAuthenticator,
  type TokenAuthenticator,
} from './authenticator.ts';
import { AnonymousAuthenticator } from './anonymous.ts';
import { allAuthenticated, allUnauthenticated, anonymousUser } from './user.ts';

/**
 * utilerrors.NewAggregate: one error as is, several as `[a, b]`; a message repeated is shown once
 * (and one distinct message without brackets), as Aggregate.Error in
 * k8s.io/apimachinery/pkg/util/errors/errors.go.
 */
export class AggregateError_ extends Error {
  readonly errors: Error[];
  constructor(errors: Error[]) {
    const messages = [...new Set(errors.map((e) => e.message))];
    super(messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`);
    this.name = 'AggregateError';
    this.errors = errors;
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function aggregate(errors: Error[]): Error {
  return errors.length === 1 ? errors[0]! : new AggregateError_(errors);
}

/**
 * union.New / NewFailOnError: tries each authenticator in order; the first success wins.
 * Without failOnError, errors are collected and the next one is tried; if none succeeds the
 * aggregate is thrown (a clean null when there were no errors). With failOnError, the first
 * error is thrown at once (so anonymous is never reached after invalid credentials).
 */
export class UnionAuthenticator implements RequestAuthenticator {
  readonly handlers: readonly RequestAuthenticator[];
  readonly failOnError: boolean;
  constructor(handlers: RequestAuthenticator[], failOnError = false) {
    this.handlers = handlers;
    this.failOnError = failOnError;
  }
  async authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null> {
    return this.authenticateFast(ctx);
  }
  authenticateFast(ctx: RequestContext): MaybeAuthenticated {
    return this.from(ctx, 0, undefined);
  }
  /** Tries handlers from `start` on; synchronous until one answers with a Promise. */
  private from(ctx: RequestContext, start: number, errors: Error[] | undefined): MaybeAuthenticated {
    const hs = this.handlers;
    for (let i = start; i < hs.length; i++) {
      const h = hs[i]!;
      let r: MaybeAuthenticated | Error;
      try {
        r = h.authenticateOrError ? h.authenticateOrError(ctx) : authenticate(h, ctx);
      } catch (err) {
        r = toError(err);
      }
      if (r instanceof Error) {
        if (this.failOnError) throw r;
        (errors ??= []).push(r);
        continue;
      }
      if (r instanceof Promise) {
        return r.then(
          (resp) => resp ?? this.from(ctx, i + 1, errors),
          (err: unknown) => {
            if (this.failOnError) throw toError(err);
            (errors ??= []).push(toError(err));
            return this.from(ctx, i + 1, errors);
          },
        );
      }
      if (r) return r;
    }
    if (errors) throw aggregate(errors);
    return null;
  }
}

/**
 * AuthorizeClientBearerToken's union.New(bearer, auth) for a bearer-token authenticator `bearer`
 * that fails on tokens it does not know. Where `auth` ends in the anonymous fallback
 * (NewFailOnError(chain, anonymous), or anonymous alone: kube's
 * pkg/kubeapiserver/authenticator/config.go), `bearer` joins the chain in front of that fallback
 * instead: a bearer token that is presented and accepted by no authenticator is an error, never
 * anonymous. kube-apiserver gets this from its service-account token authenticator, which is
 * always in the chain; here the loopback token may be the only bearer-token authenticator.
 */
export function unionBeforeAnonymous(bearer: RequestAuthenticator, auth: RequestAuthenticator): RequestAuthenticator {
  if (auth instanceof AnonymousAuthenticator) return new UnionAuthenticator([bearer, auth], true);
  const last =
    auth instanceof UnionAuthenticator && auth.failOnError ? auth.handlers[auth.handlers.length - 1] : undefined;
  if (last instanceof AnonymousAuthenticator) {
    const chain = auth instanceof UnionAuthenticator ? auth.handlers.slice(0, -1) : [];
    return new UnionAuthenticator([new UnionAuthenticator([bearer, ...chain]), last], true);
  }
  return new UnionAuthenticator([bearer, auth]);
}

/** token/union: the same for token authenticators (never fail-on-error in kube-apiserver). */
export class UnionTokenAuthenticator implements TokenAuthenticator {
  private readonly handlers: TokenAuthenticator[];
  constructor(handlers: TokenAuthenticator[]) {
    this.handlers = handlers;
  }
  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticatorResponse | null> {
    return this.authenticateTokenFast(token, audiences);
  }
  authenticateTokenFast(token: string, audiences?: readonly string[]): MaybeAuthenticated {
    return this.from(token, audiences, 0, undefined);
  }
  private from(
    token: string,
    audiences: readonly string[] | undefined,
    start: number,
    errors: Error[] | undefined,
  ): MaybeAuthenticated {
    const hs = this.handlers;
    for (let i = start; i < hs.length; i++) {
      let r: MaybeAuthenticated;
      try {
        r = authenticateToken(hs[i]!, token, audiences);
      } catch (err) {
        (errors ??= []).push(toError(err));
        continue;
      }
      if (r instanceof Promise) {
        return r.then(
          (resp) => resp ?? this.from(token, audiences, i + 1, errors),
          (err: unknown) => {
            (errors ??= []).push(toError(err));
            return this.from(token, audiences, i + 1, errors);
          },
        );
      }
      if (r) return r;
    }
    if (errors) throw aggregate(errors);
    return null;
  }
}

/**
 * group.NewAuthenticatedGroupAdder: every authenticated non-anonymous user gets
 * `system:authenticated` unless it already has it or `system:unauthenticated`.
 */
export class AuthenticatedGroupAdder implements RequestAuthenticator {
  private readonly inner: RequestAuthenticator;
  constructor(inner: RequestAuthenticator) {
    this.inner = inner;
  }
  /** Responses already given the group (a cached token answers with the same object each time). */
  private readonly added = new WeakMap<AuthenticatorResponse, AuthenticatorResponse>();
  async authenticateRequest(ctx: RequestContext): Promise<AuthenticatorResponse | null> {
    return this.authenticateFast(ctx);
  }
  authenticateFast(ctx: RequestContext): MaybeAuthenticated {
    const r = authenticate(this.inner, ctx);
    return r instanceof Promise ? r.then((resp) => this.add(resp)) : this.add(r);
  }
  private add(resp: AuthenticatorResponse | null): AuthenticatorResponse | null {
    if (!resp) return resp;
    const u = resp.user;
    const groups = u.groups ?? [];
    if (u.name === anonymousUser || groups.includes(allAuthenticated) || groups.includes(allUnauthenticated))
      return resp;
    let out = this.added.get(resp);
    if (!out) {
      out = { ...resp, user: { ...u, groups: [...groups, allAuthenticated] } };
      this.added.set(resp, out);
    }
    return out;
  }
}
