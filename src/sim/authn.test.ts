/** Bearer-token parsing and authentication of the simulated API server (authn.ts), as kube-apiserver's. */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ADMIN_USER, Authenticator, bearerToken, serviceAccountUser } from './authn.js';

describe('bearerToken (kube-apiserver bearertoken.go)', () => {
  it.each([
    ['Bearer gpuops-sim', 'gpuops-sim'],
    ['bearer gpuops-sim', 'gpuops-sim'],
    ['  Bearer gpuops-sim  ', 'gpuops-sim'],
    ['Bearer gpuops-sim trailing', 'gpuops-sim'],
    ['Bearer  gpuops-sim', undefined], // two spaces: the token part is empty
    ['Bearer ', undefined],
    ['Bearer', undefined],
    ['Basic Z3B1b3BzLXNpbTo=', undefined],
    ['gpuops-sim', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %s', (header, want) => expect(bearerToken(header)).toBe(want));
});

describe('Authenticator', () => {
  const req = (authorization?: string) => ({ headers: { authorization } }) as IncomingMessage;
  const authn = new Authenticator('s3cret');
  const sa = authn.issueToken('gpuops-system', 'gpuops');

  it.each([
    ['the admin token', 'Bearer s3cret', ADMIN_USER],
    ['an issued ServiceAccount token', `Bearer ${sa}`, serviceAccountUser('gpuops-system', 'gpuops')],
  ])('%s names its user', (_, header, user) => expect(authn.authenticate(req(header))).toEqual(user));

  it.each([
    ['no header', undefined],
    ['a prefix of the token', 'Bearer s3cre'],
    ['the token and more', 'Bearer s3cret0'],
    ['another case', 'Bearer S3CRET'],
    ['the default token of another sim', 'Bearer gpuops-sim'],
    ['Basic auth', 'Basic czNjcmV0Og=='],
  ])('%s: 401 Unauthorized', (_, header) =>
    expect(() => authn.authenticate(req(header))).toThrow(
      expect.objectContaining({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' }),
    ),
  );

  it.each([[''], ['with space'], ['tab\there'], ['é']])('refuses %j as an admin token', (t) =>
    expect(() => new Authenticator(t)).toThrow(/printable ASCII/),
  );
});
