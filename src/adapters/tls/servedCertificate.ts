/**
 * Reads the certificate a TLS server presents, by a handshake and nothing else: no request is sent and
 * the certificate is not trusted for anything — it is only compared with the files on disk. Only ever
 * dialed at the inventory's endpoint and control-plane addresses.
 */
import { connect } from 'node:tls';
import { isIP } from 'node:net';
import { parseCertificate, type CertFacts } from '../../core/certs/x509';
import { toError } from '../../core/errors';
import { t } from '../../core/l10n';

export function servedCertificate(address: string, port: number, timeoutMs = 5000): Promise<CertFacts> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: address,
      port,
      // SNI must be a name, not an address; kube-apiserver serves the same certificate either way.
      ...(isIP(address) ? {} : { servername: address }),
      rejectUnauthorized: false,
      timeout: timeoutMs,
    });
    const fail = (e: Error) => {
      socket.destroy();
      reject(e);
    };
    socket.once('secureConnect', () => {
      const x509 = socket.getPeerX509Certificate();
      socket.end();
      if (!x509) reject(new Error(t('the server presented no certificate')));
      else {
        try {
          resolve(parseCertificate(x509.raw));
        } catch (e) {
          reject(toError(e));
        }
      }
    });
    socket.once('timeout', () => fail(new Error(t('no TLS handshake within {0} ms', timeoutMs))));
    socket.once('error', fail);
  });
}
