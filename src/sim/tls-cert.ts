/**
 * A self-signed serving certificate for the simulated API server, made at start (no openssl, no
 * package): an ECDSA P-256 key and an X.509 v3 certificate (RFC 5280) signed by it, for the names
 * the server answers (`subjectAltName`: IP literals as iPAddress, other names as dNSName). It is
 * its own CA (basicConstraints CA:TRUE), so the kubeconfig's `certificate-authority-data` is the
 * certificate itself and kubectl (Go's crypto/x509) and Node's TLS both verify it.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/** A key and certificate in PEM. */
export interface ServingCert {
  key: string;
  cert: string;
}

const len = (n: number): Buffer => {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
};
const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const oid = (dotted: string): Buffer => {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a! + b!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
};
const positiveInteger = (bytes: Buffer) =>
  tlv(0x02, (bytes[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
const bitString = (bytes: Buffer) => tlv(0x03, Buffer.from([0]), bytes);
/** UTCTime before 2050, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
const time = (d: Date): Buffer => {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
};
const ipBytes = (ip: string): Buffer => {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
};

/**
 * Makes a key and a self-signed certificate for `names` (IP literals and DNS names; IPv4-mapped
 * and zone-scoped IPv6 addresses are skipped), valid from an hour before `now` for a year.
 * `usage` is its extended key usage: `serverAuth` (a serving certificate, the default) or
 * `clientAuth` (a client certificate that is its own CA, e.g. kube-apiserver's front proxy
 * client, which an aggregated API server verifies against it as `requestheader-client-ca-file`).
 * @throws Error when `names` holds no usable name
 */
export function selfSignedCert(
  names: readonly string[],
  now: Date = new Date(),
  usage: 'serverAuth' | 'clientAuth' = 'serverAuth',
): ServingCert {
  const sans = names
    .filter((n) => !n.includes('%') && !n.startsWith('::ffff:'))
    .map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii'))));
  if (sans.length === 0) throw new Error('a serving certificate needs at least one name');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from('gpuops-sim')))));
  const ext = (id: string, critical: boolean, value: Buffer) =>
    seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
  const serial = randomBytes(16);
  // Positive with no leading zero byte: 0x40–0x7f first (a 0x00 first byte over a byte below
  // 0x80 is illegal DER padding, which OpenSSL refuses in about one certificate in 512).
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))), // v3
    positiveInteger(serial),
    ecdsaSha256,
    name,
    seq(time(new Date(now.getTime() - 3600_000)), time(new Date(now.getTime() + 365 * 86400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(
      0xa3,
      seq(
        ext('2.5.29.19', true, seq(tlv(0x01, Buffer.from([0xff])))), // basicConstraints CA:TRUE
        ext('2.5.29.15', true, tlv(0x03, Buffer.from([0x02, 0x84]))), // keyUsage digitalSignature, keyCertSign
        // extKeyUsage serverAuth (.1) or clientAuth (.2)
        ext('2.5.29.37', false, seq(oid(usage === 'serverAuth' ? '1.3.6.1.5.5.7.3.1' : '1.3.6.1.5.5.7.3.2'))),
        ext('2.5.29.17', false, seq(...sans)), // subjectAltName
      ),
    ),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = seq(tbs, ecdsaSha256, bitString(signature));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${b64.replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`,
  };
}
