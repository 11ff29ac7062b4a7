// The certificate and key HTTPS is served with: the user's own (--tls-cert, --tls-key), or one the
// sandbox CA issues for localhost (made once, kept in --tls-dir). The CA code and its library load
// only when TLS is asked for: a plain HTTP start never reads them.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SandboxConfig } from '../config.js';

export interface TlsMaterial {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
  /** The sandbox CA clients must trust; null for the user's own certificate. */
  caFile: string | null;
  /** What this start made in the CA folder (nothing: kept from an earlier start, or the user's certificate). */
  made: { ca: boolean; certificate: boolean };
}

type TlsOptions = Pick<SandboxConfig, 'tls' | 'httpsPort' | 'tlsCert' | 'tlsKey' | 'tlsDir'>;

/** Whether --port itself serves HTTPS: --tls, or the user's certificate without --https-port. */
export function mainPortTls(config: TlsOptions): boolean {
  return config.tls || (Boolean(config.tlsCert) && config.httpsPort === null);
}

export function usesTls(config: TlsOptions): boolean {
  return mainPortTls(config) || config.httpsPort !== null;
}

/** The folder the sandbox CA is kept in. */
export function tlsDirOf(config: Pick<SandboxConfig, 'tlsDir'>): string {
  return config.tlsDir ?? join(homedir(), '.payments-sandbox', 'tls');
}

export async function tlsMaterial(config: TlsOptions): Promise<TlsMaterial> {
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) throw new Error('--tls-cert and --tls-key go together: give both, or neither');
  if (config.tlsCert && config.tlsKey) return ownCertificate(config.tlsCert, config.tlsKey);
  const { sandboxCertificate } = await import('./sandbox-ca.js');
  const dir = tlsDirOf(config);
  try {
    return await sandboxCertificate(dir);
  } catch (err) {
    throw new Error(`cannot keep the sandbox CA in ${dir} (--tls-dir): ${(err as Error).message}`);
  }
}

function ownCertificate(certFile: string, keyFile: string): TlsMaterial {
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const cert = read('--tls-cert', certFile);
  const key = read('--tls-key', keyFile);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (err) {
    throw new Error(`--tls-cert: ${certFile} is not a PEM certificate: ${(err as Error).message}`);
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(key));
  } catch (err) {
    throw new Error(`--tls-key: ${keyFile} is not a PEM private key: ${(err as Error).message}`);
  }
  if (!matches) throw new Error(`--tls-key: ${keyFile} is not the private key of the certificate ${certFile}`);
  return { cert, key, certFile, keyFile, caFile: null, made: { ca: false, certificate: false } };
}
