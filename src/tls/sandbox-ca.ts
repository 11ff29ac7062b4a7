// The sandbox's own certificate authority, made once per folder (default ~/.payments-sandbox/tls)
// and kept, so a device or a trust store told to trust it once keeps trusting every later start;
// and the certificate for localhost, 127.0.0.1 and ::1 it issues, made again when it is expired,
// close to expiry, or was issued by another CA. Certificates are made with @peculiar/x509 over
// WebCrypto (ECDSA P-256, SHA-256) and checked with Node's X509Certificate. The CA is constrained
// to those three names. Key files are 0600 in a 0700 folder. Starts sharing a folder (parallel CI jobs) take a lock folder in turn.
import 'reflect-metadata'; // @peculiar/x509's dependency injection (tsyringe) needs it loaded first
import { createPrivateKey, KeyObject, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree, GeneralSubtrees, id_ce_nameConstraints, NameConstraints } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export const CA_FILE = 'ca.pem';
export const CA_KEY_FILE = 'ca-key.pem';
export const LEAF_FILE = 'localhost.pem';
export const LEAF_KEY_FILE = 'localhost-key.pem';

/** The names the served certificate is valid for. */
export const LEAF_NAMES = { dns: ['localhost'], ip: ['127.0.0.1', '::1'] };

const DAY_MS = 86_400_000;
/** Ten years: trusting it is a manual step on a device, done once. */
const CA_LIFETIME_MS = 3650 * DAY_MS;
/** Under the 398 days Apple platforms and browsers accept for a server certificate. */
const LEAF_LIFETIME_MS = 397 * DAY_MS;
/** A certificate this close to its end is made again, so none expires during a run. */
const RENEW_BEFORE_MS = 7 * DAY_MS;

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface SandboxCertificate {
  /** PEM of the served certificate and its key. */
  cert: string;
  key: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  /** What this call made: nothing when both were kept from an earlier start. */
  made: { ca: boolean; certificate: boolean };
}

/** The CA and the localhost certificate in `dir`, made or renewed as needed. */
export async function sandboxCertificate(dir: string, now: Date = new Date()): Promise<SandboxCertificate> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const unlock = await lock(dir);
  try {
    let ca = keptCa(dir, now);
    const made = { ca: false, certificate: false };
    if (!ca) {
      ca = await makeCa(now);
      writeKey(join(dir, CA_KEY_FILE), ca.keyPem);
      writeCert(join(dir, CA_FILE), ca.certPem);
      made.ca = true;
    }
    let leaf = made.ca ? null : keptLeaf(dir, ca.cert, now);
    if (!leaf) {
      leaf = await makeLeaf(ca, now);
      writeKey(join(dir, LEAF_KEY_FILE), leaf.keyPem);
      writeCert(join(dir, LEAF_FILE), leaf.certPem);
      made.certificate = true;
    }
    return {
      cert: leaf.certPem,
      key: leaf.keyPem,
      caFile: join(dir, CA_FILE),
      certFile: join(dir, LEAF_FILE),
      keyFile: join(dir, LEAF_KEY_FILE),
      made,
    };
  } finally {
    unlock();
  }
}

interface Issued {
  certPem: string;
  keyPem: string;
  cert: X509Certificate;
}

function readPair(dir: string, certName: string, keyName: string): Issued | null {
  try {
    const certPem = readFileSync(join(dir, certName), 'utf8');
    const keyPem = readFileSync(join(dir, keyName), 'utf8');
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return null;
    return { certPem, keyPem, cert };
  } catch {
    return null; // missing or unreadable: made again
  }
}

const usableAt = (cert: X509Certificate, now: Date) =>
  Date.parse(cert.validFrom) <= now.getTime() && Date.parse(cert.validTo) - RENEW_BEFORE_MS > now.getTime();

function keptCa(dir: string, now: Date): Issued | null {
  const ca = readPair(dir, CA_FILE, CA_KEY_FILE);
  return ca?.cert.ca && usableAt(ca.cert, now) ? ca : null;
}

function keptLeaf(dir: string, ca: X509Certificate, now: Date): Issued | null {
  const leaf = readPair(dir, LEAF_FILE, LEAF_KEY_FILE);
  if (!leaf || !usableAt(leaf.cert, now) || !leaf.cert.checkIssued(ca) || !leaf.cert.verify(ca.publicKey)) return null;
  const names = leaf.cert.subjectAltName ?? '';
  const covers =
    LEAF_NAMES.dns.every((n) => names.includes(`DNS:${n}`)) && leaf.cert.checkIP('127.0.0.1') !== undefined && leaf.cert.checkIP('::1') !== undefined;
  return covers ? leaf : null;
}

async function makeCa(now: Date): Promise<Issued> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '-') || 'this machine';
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `O=payments-sandbox, CN=payments-sandbox local CA (${host})`,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + CA_LIFETIME_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      localhostOnly(),
    ],
  });
  return issued(cert, keys.privateKey);
}

/**
 * Name constraints: whoever trusts this CA trusts it for localhost, 127.0.0.1 and ::1 only, so its
 * key (a file in the user's home) can never vouch for a real site, whatever it signs.
 */
function localhostOnly(): x509.Extension {
  const permitted = new GeneralSubtrees([
    ...LEAF_NAMES.dns.map((name) => new GeneralSubtree({ base: new GeneralName({ dNSName: name }) })),
    ...LEAF_NAMES.ip.map((ip) => new GeneralSubtree({ base: new GeneralName({ iPAddress: `${ip}/${ip.includes(':') ? 128 : 32}` }) })),
  ]);
  return new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(new NameConstraints({ permittedSubtrees: permitted })));
}

async function makeLeaf(ca: Issued, now: Date): Promise<Issued> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const caKey = await webcrypto.subtle.importKey(
    'pkcs8',
    createPrivateKey(ca.keyPem).export({ type: 'pkcs8', format: 'der' }),
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['sign'],
  );
  const caCert = new x509.X509Certificate(ca.certPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'O=payments-sandbox, CN=localhost',
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + LEAF_LIFETIME_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...LEAF_NAMES.dns.map((value) => ({ type: 'dns' as const, value })),
        ...LEAF_NAMES.ip.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return issued(cert, keys.privateKey);
}

function issued(cert: x509.X509Certificate, privateKey: CryptoKey): Issued {
  const certPem = `${cert.toString('pem')}\n`;
  const keyPem = KeyObject.from(privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem, keyPem, cert: new X509Certificate(certPem) };
}

/** A positive 16-byte serial number, in hex. */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  bytes[0] |= 0x01;
  return bytes.toString('hex');
}

function writeKey(path: string, pem: string): void {
  writeAtomically(path, pem, 0o600);
}

function writeCert(path: string, pem: string): void {
  writeAtomically(path, pem, 0o644);
}

function writeAtomically(path: string, text: string, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode });
  chmodSync(temporary, mode); // the mode of writeFileSync is masked by the umask
  renameSync(temporary, path);
}

const LOCK_WAIT_MS = 20_000;
/** A lock older than this was left by a start that died while holding it. */
const STALE_LOCK_MS = 30_000;

async function lock(dir: string): Promise<() => void> {
  const path = join(dir, '.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(path);
      return () => rmSync(path, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const since = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > STALE_LOCK_MS) rmSync(path, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`${path} has been held for ${LOCK_WAIT_MS / 1000} s: another start is making the certificate, or remove it`);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
