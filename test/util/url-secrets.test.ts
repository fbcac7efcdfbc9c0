import { describe, expect, it } from 'vitest';
import { redactUrls, urlSecrets } from '../../src/util/url-secrets.js';

describe('redactUrls (issue 29 item 3): userinfo up to the last @, secret parameters', () => {
  it.each([
    [
      'PasswordInQuery',
      'postgres://u@host/db?password=s3cret&sslmode=require',
      'postgres://***@host/db?password=***&sslmode=require',
    ],
    ['AtInPassword', 'postgres://u:p@ss@word@host:5432/db', 'postgres://***@host:5432/db'],
    ['SlashInPassword', 'postgres://u:pa/ss@host/db', 'postgres://***@host/db'],
    ['TokenAsUser', 'https://ghp_0123456789abcdef@github.com/o/r.git', 'https://***@github.com/o/r.git'],
    [
      'SslPassword',
      'postgres://h/db?sslmode=verify-full&sslpassword=keypw',
      'postgres://h/db?sslmode=verify-full&sslpassword=***',
    ],
    ['LibpqKeywords', "host=db password='p w' dbname=x", 'host=db password=*** dbname=x'],
    [
      'InsideJson',
      '{"msg":"connect postgres://a:b@c/d failed"}',
      '{"msg":"connect postgres://***@c/d failed"}',
    ],
    ['TwoUrls', 'from https://a:b@x to ssh://git@y/z', 'from https://***@x to ssh://***@y/z'],
  ])('%s', (_n, text, want) => {
    expect(redactUrls(text)).toBe(want);
  });

  it.each([
    ['NoCredentials', 'https://api.github.com/repos/o/r?per_page=100'],
    ['PlainPath', 'sqlite:.gpuops/state.db'],
    ['Words', 'the password is not here; tokens=3'],
  ])('%s: unchanged', (_n, text) => {
    expect(redactUrls(text)).toBe(text);
  });
});

describe('urlSecrets: what the consumer reads as a credential', () => {
  it.each([
    ['PasswordInQuery', 'postgres://u@host/db?password=s3cretpw', ['s3cretpw']],
    [
      'AtInPassword (WHATWG and pg take the last @)',
      'postgres://u:p@ss@word@host/db',
      ['p@ss@word', 'p%40ss%40word'],
    ],
    ['EncodedAt', 'postgres://u:p%40ss@host/db', ['p%40ss', 'p@ss']],
    ['SlashInPassword (no parser sees it; the last-@ rule does)', 'postgres://u:pa/ss@host/db', ['pa/ss']],
    ['TokenAsUser', 'https://ghp_0123456789abcdef@github.com/o/r', ['ghp_0123456789abcdef']],
    ['ShortUserIsNoSecret', 'ssh://git@github.com/o/r', []],
    ['QueryToken', 'http://prom:9090/?access_token=abcdef123', ['abcdef123']],
    ['LibpqKeywords', "host=db password='p w' dbname=x", ['p w']],
    ['Nothing', 'sqlite:.gpuops/state.db', []],
    ['Undefined', undefined, []],
  ])('%s', (_n, url, want) => {
    expect(urlSecrets(url).sort()).toEqual([...want].sort());
  });
});
