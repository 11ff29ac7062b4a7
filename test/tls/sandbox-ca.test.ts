// The sandbox CA itself: one CA for starts racing on one folder, and a CA that clients trust for
// localhost, 127.0.0.1 and ::1 only (name constraints): a certificate its key signs for any other
// name is refused by a client that trusts the CA.
import 'reflect-metadata';
import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCertificate } from '../../src/tls/sandbox-ca.js';
import { h1Request } from './support.js';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

describe('the sandbox CA', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-ca-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is made once when starts race on one folder', async () => {
    const folder = join(dir, 'race');
    const results = await Promise.all([sandboxCertificate(folder), sandboxCertificate(folder), sandboxCertificate(folder)]);
    expect(results.filter((r) => r.made.ca)).toHaveLength(1);
    expect(new Set(results.map((r) => r.cert)).size).toBe(1);
    const ca = new X509Certificate(readFileSync(join(folder, 'ca.pem')));
    for (const r of results) expect(new X509Certificate(r.cert).checkIssued(ca)).toBe(true);
  });

  /** A certificate for `name` signed with the CA's own key, served by a bare HTTPS server. */
  async function serveSignedFor(folder: string, name: string): Promise<{ url: string; close: () => void }> {
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    const caPem = readFileSync(join(folder, 'ca.pem'), 'utf8');
    const caKey = await webcrypto.subtle.importKey(
      'pkcs8',
      createPrivateKey(readFileSync(join(folder, 'ca-key.pem'))).export({ type: 'pkcs8', format: 'der' }),
      { name: 'ECDSA', namedCurve: 'P-256' },
      false,
      ['sign'],
    );
    const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: '0a1b2c',
      subject: `CN=${name}`,
      issuer: new x509.X509Certificate(caPem).subject,
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
      signingAlgorithm: ALGORITHM,
      publicKey: keys.publicKey,
      signingKey: caKey,
      extensions: [
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: name }]),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      ],
    });
    const key = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    const server = createServer(
      { cert: cert.toString('pem'), key: createPrivateKey({ key, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }) },
      (_req, res) => res.end('ok'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
  }

  it('vouches for localhost only: a certificate its key signs for another name is refused', async () => {
    const folder = join(dir, 'constrained');
    await sandboxCertificate(folder);
    const ca = readFileSync(join(folder, 'ca.pem'));
    const outside = await serveSignedFor(folder, 'bank.example');
    const inside = await serveSignedFor(folder, 'localhost');
    try {
      await expect(h1Request(`${outside.url}/`, { ca, servername: 'bank.example' })).rejects.toThrow('permitted subtree violation');
      const ok = await h1Request(`${inside.url}/`, { ca, servername: 'localhost' });
      expect(ok).toMatchObject({ status: 200, body: 'ok' });
    } finally {
      outside.close();
      inside.close();
    }
  });
});
