/** The simulator's self-signed serving certificate (tls-cert.ts) parses and names what it serves. */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedCert } from './tls-cert.js';

describe('selfSignedCert', () => {
  it('is valid DER every time (a random serial with a leading zero byte once broke it 1 in 128)', () => {
    for (let i = 0; i < 300; i++) {
      const x = new X509Certificate(selfSignedCert(['127.0.0.1']).cert);
      expect(x.verify(x.publicKey)).toBe(true);
    }
  });

  it('names IP literals as IP addresses and other names as DNS names', () => {
    const x = new X509Certificate(selfSignedCert(['127.0.0.1', '::1', 'localhost']).cert);
    expect(x.subjectAltName).toBe('IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.ca).toBe(true);
  });

  it('is a serving certificate by default, a client certificate (the front proxy) when asked', () => {
    expect(new X509Certificate(selfSignedCert(['localhost']).cert).keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    const client = new X509Certificate(selfSignedCert(['front-proxy-client'], new Date(), 'clientAuth').cert);
    expect(client.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(client.verify(client.publicKey)).toBe(true);
  });
});
