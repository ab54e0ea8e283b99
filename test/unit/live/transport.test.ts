/**
 * The kube transport against a real TLS server that requires a client certificate (openssl-made PKI) and a real
 * HTTP CONNECT proxy, both on loopback: the certificate and per-request credentials arrive, a host that rewrites
 * `https.request` (as VS Code's proxy support does) cannot drop them, kubeconfig proxy-url is honoured.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as https from 'node:https';
import * as net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import { readFileSync, rmSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { HttpsTransport } from '../../../src/adapters/kube/transport';
import { decideProxy, noProxyMatches } from '../../../src/core/live/proxy';
import { makePki } from '../../integration/apiserver';
import { tempDir } from '../../tempDir';

interface Seen {
  cn: string | undefined;
  authorization: string | undefined;
}

async function withServer(fn: (ctx: { server: string; ca: Buffer; cert: Buffer; key: Buffer; seen: Seen[] }) => Promise<void>): Promise<void> {
  const dir = tempDir('kw-transport-');
  try {
    const pki = makePki(dir);
    const seen: Seen[] = [];
    const srv = https.createServer({ ca: readFileSync(pki.ca), cert: readFileSync(pki.file('apiserver.crt')), key: readFileSync(pki.file('apiserver.key')), requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      const cn = peer && peer.subject ? String(peer.subject.CN) : undefined;
      seen.push({ cn, authorization: req.headers.authorization });
      // Like kube-apiserver: no client certificate and no token → system:anonymous, 403 on lists.
      const user = cn ?? (req.headers.authorization ? 'token-user' : 'system:anonymous');
      res.writeHead(user === 'system:anonymous' ? 403 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(user === 'system:anonymous' ? { kind: 'Status', message: 'pods is forbidden: User "system:anonymous" cannot list resource "pods"' } : { kind: 'PodList', metadata: { resourceVersion: '1' }, items: [{ metadata: { name: user } }] }));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as net.AddressInfo).port;
    try {
      await fn({ server: `https://127.0.0.1:${port}`, ca: readFileSync(pki.ca), cert: readFileSync(pki.file('admin.crt')), key: readFileSync(pki.file('admin.key')), seen });
    } finally {
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the client certificate reaches the server and the list is the admin\'s', async () => {
  await withServer(async ({ server, ca, cert, key, seen }) => {
    const t = new HttpsTransport(server, { ca, cert, key });
    const list = await t.list('/api/v1/pods', {});
    assert.equal((list.items[0] as { metadata: { name: string } }).metadata.name, 'kw-admin');
    assert.equal(seen[0]!.cn, 'kw-admin');
    t.dispose();
  });
});

test('a host that rewrites https.request (drops the agent, like VS Code\'s proxy support) cannot make requests anonymous', async () => {
  await withServer(async ({ server, ca, cert, key, seen }) => {
    // The module object CommonJS callers (and VS Code's patch) see; the ESM namespace is read-only.
    const cjsHttps = process.getBuiltinModule('node:https') as { request: typeof https.request };
    const original = cjsHttps.request;
    let rewritten = 0;
    // What @vscode/proxy-agent does for a non-loopback host in `override` mode: the caller's agent is replaced
    // and the request goes out with only its own options.
    cjsHttps.request = ((...args: Parameters<typeof https.request>) => {
      rewritten++;
      const [a, b, c] = args as unknown as [https.RequestOptions, unknown, unknown];
      const opts = typeof a === 'object' && !(a instanceof URL) ? { ...a, agent: undefined } : a;
      return (original as (...x: unknown[]) => unknown)(opts, b, c);
    }) as typeof https.request;
    syncBuiltinESMExports();
    try {
      const t = new HttpsTransport(server, { ca, cert, key });
      const list = await t.list('/api/v1/pods', {});
      assert.equal((list.items[0] as { metadata: { name: string } }).metadata.name, 'kw-admin', `seen: ${JSON.stringify(seen)}`);
      t.dispose();
    } finally {
      cjsHttps.request = original;
      syncBuiltinESMExports();
    }
    assert.equal(rewritten, 0, 'the transport does not go through the module-level https.request');
  });
});

test('credentials are asked for per request (a renewed exec-plugin token is used at once)', async () => {
  await withServer(async ({ server, ca, seen }) => {
    let n = 0;
    const t = new HttpsTransport(server, async () => ({ ca, headers: { Authorization: `Bearer token-${++n}` } }));
    await t.get('/api/v1/pods');
    await t.get('/api/v1/pods');
    assert.deepEqual(seen.map((s) => s.authorization), ['Bearer token-1', 'Bearer token-2']);
    t.dispose();
  });
});

test('a failing credential plugin is an authentication failure, not a hang', async () => {
  await withServer(async ({ server, ca }) => {
    const t = new HttpsTransport(server, async () => {
      throw new Error('exec: kubelogin: not found');
    });
    void ca;
    await assert.rejects(t.get('/readyz'), (e: Error & { kind?: string }) => e.kind === 'auth' && /kubelogin/.test(e.message));
    t.dispose();
  });
});

test('kubeconfig proxy-url: the request goes through the CONNECT proxy, still with the client certificate', async () => {
  await withServer(async ({ server, ca, cert, key, seen }) => {
    const tunnels: string[] = [];
    const proxy = net.createServer((client) => {
      client.once('data', (d) => {
        const m = /^CONNECT (\S+) HTTP\/1\.1/.exec(d.toString('latin1'));
        if (!m) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
        tunnels.push(m[1]!);
        const [host, port] = [m[1]!.slice(0, m[1]!.lastIndexOf(':')), Number(m[1]!.slice(m[1]!.lastIndexOf(':') + 1))];
        const up = net.connect(port, host, () => {
          client.write('HTTP/1.1 200 Connection established\r\n\r\n');
          client.pipe(up).pipe(client);
        });
        up.on('error', () => client.destroy());
        client.on('error', () => up.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    try {
      const t = new HttpsTransport(server, { ca, cert, key }, undefined, { proxyUrl, env: {} });
      assert.equal(t.route.kind, 'proxy');
      const list = await t.list('/api/v1/pods', {});
      assert.equal((list.items[0] as { metadata: { name: string } }).metadata.name, 'kw-admin');
      assert.equal(tunnels.length, 1);
      assert.equal(tunnels[0], new URL(server).host);
      assert.equal(seen[0]!.cn, 'kw-admin');
      t.dispose();
      // A proxy that refuses the tunnel is reported as such.
      const refusing = net.createServer((c) => c.once('data', () => c.end('HTTP/1.1 403 Forbidden\r\n\r\n')));
      await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
      const t2 = new HttpsTransport(server, { ca, cert, key }, undefined, { proxyUrl: `http://127.0.0.1:${(refusing.address() as net.AddressInfo).port}`, env: {} });
      await assert.rejects(t2.get('/readyz'), /refused the tunnel.*403 Forbidden/);
      t2.dispose();
      refusing.close();
    } finally {
      proxy.close();
    }
  });
});

test('proxy decision like kubectl: proxy-url first, HTTPS_PROXY unless NO_PROXY matches, never for loopback', () => {
  const env = { HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: 'localhost,.lab.internal,10.3.60.0/24,192.168.1.7:6443' };
  assert.equal(decideProxy('https://10.3.60.100:6443', undefined, env).kind, 'direct');
  assert.equal(decideProxy('https://api.lab.internal:6443', undefined, env).kind, 'direct');
  assert.equal(decideProxy('https://lab.internal:6443', undefined, env).kind, 'direct');
  assert.equal(decideProxy('https://192.168.1.7:6443', undefined, env).kind, 'direct');
  assert.equal(decideProxy('https://192.168.1.7:443', undefined, env).kind, 'proxy');
  assert.equal(decideProxy('https://10.3.61.1:6443', undefined, env).kind, 'proxy');
  assert.equal(decideProxy('https://127.0.0.1:6443', undefined, env).kind, 'direct');
  assert.equal(decideProxy('https://10.3.61.1:6443', undefined, { https_proxy: 'proxy:8080' }).kind, 'proxy');
  const viaUrl = decideProxy('https://10.3.60.100:6443', 'http://u:p@jump:8888', env);
  assert.equal(viaUrl.kind === 'proxy' && viaUrl.url.host, 'jump:8888');
  assert.throws(() => decideProxy('https://10.3.60.100:6443', 'socks5://jump:1080', {}), /socks5 proxies are not supported/);
  assert.equal(noProxyMatches('*', 'anything', '1'), true);
  assert.equal(noProxyMatches('fd00::/8', 'fd00::1', '6443'), true);
  assert.equal(noProxyMatches('fd00::/8', 'fe80::1', '6443'), false);
  assert.equal(noProxyMatches('example.com', 'notexample.com', '443'), false);
});
