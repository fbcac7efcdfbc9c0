/** The Host-header rules of the simulated API server (host-check.ts), at their edges. */
import { describe, expect, it } from 'vitest';
import { allowedHostnames, isLoopbackAddress, isWildcardAddress, requestHostname } from './host-check.js';

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['128.0.0.1', false],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['127.0.0.1.evil.example', false],
  ])('%s → %s', (a, want) => expect(isLoopbackAddress(a)).toBe(want));
});

describe('isWildcardAddress', () => {
  it.each([
    ['0.0.0.0', true],
    ['::', true],
    ['[::]', true],
    ['0.0.0.1', false],
    ['127.0.0.1', false],
  ])('%s → %s', (a, want) => expect(isWildcardAddress(a)).toBe(want));
});

describe('requestHostname', () => {
  it.each([
    ['127.0.0.1:6443', '127.0.0.1'],
    ['127.0.0.1', '127.0.0.1'],
    ['LOCALHOST:80', 'localhost'],
    ['localhost.:80', 'localhost'],
    ['[::1]:6443', '::1'],
    ['evil.example:6443', 'evil.example'],
    ['127.0.0.1.evil.example', '127.0.0.1.evil.example'],
    ['user@127.0.0.1', undefined],
    ['127.0.0.1/x', undefined],
    ['127.0.0.1 evil', undefined],
    ['[::1', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s → %s', (header, want) => expect(requestHostname(header)).toBe(want));
});

describe('allowedHostnames', () => {
  const machine = { interfaces: ['127.0.0.1', '::1', '10.1.2.3', 'fe80::1'], hostname: 'Dev-Box' };
  it('loopback: its address and localhost, nothing of the other interfaces', () => {
    expect([...allowedHostnames({ bound: '127.0.0.1', requested: '127.0.0.1', ...machine })].sort()).toEqual([
      '127.0.0.1',
      'localhost',
    ]);
  });
  it('a wildcard: every interface address, the host name and localhost', () => {
    expect([...allowedHostnames({ bound: '0.0.0.0', requested: '0.0.0.0', ...machine })].sort()).toEqual([
      '0.0.0.0',
      '10.1.2.3',
      '127.0.0.1',
      '::1',
      'dev-box',
      'fe80::1',
      'localhost',
    ]);
  });
  it('one interface address: that address and the names added, not localhost', () => {
    expect([...allowedHostnames({ bound: '10.1.2.3', extra: ['Sim.Example.'], ...machine })].sort()).toEqual([
      '10.1.2.3',
      'sim.example',
    ]);
  });
  it('listening on the name localhost (bound to ::1): ::1, localhost and 127.0.0.1', () => {
    expect([...allowedHostnames({ bound: '::1', requested: 'localhost', ...machine })].sort()).toEqual([
      '127.0.0.1',
      '::1',
      'localhost',
    ]);
  });
});
