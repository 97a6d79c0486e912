// The reference proxy reads a TLS connection's server name from its ClientHello without terminating
// TLS. The ClientHellos here are Node's own (its TLS client writing into a stream that keeps them),
// cut at every byte, split over several TLS records, and refused when they are not TLS or too large.
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { parseClientHello } from '../../src/proxy/client-hello';

/** The first flight of a real TLS client: its ClientHello records. */
async function clientHello(options: tls.ConnectionOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const wire = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  const socket = tls.connect({ ...options, socket: wire });
  socket.on('error', () => undefined);
  await new Promise((r) => setTimeout(r, 50));
  socket.destroy();
  return Buffer.concat(chunks);
}

/** The same handshake message re-framed into records of at most `size` bytes. */
function reframe(hello: Buffer, size: number): Buffer {
  const body = hello.subarray(5);
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const part = body.subarray(at, at + size);
    const head = Buffer.from([0x16, 0x03, 0x01, 0, 0]);
    head.writeUInt16BE(part.length, 3);
    out.push(head, part);
  }
  return Buffer.concat(out);
}

describe('the ClientHello a TLS front reads', () => {
  it('gives the server name and the ALPN protocols, lower case and without a trailing dot', async () => {
    const hello = await clientHello({ servername: 'Secure.Example.com', ALPNProtocols: ['h2', 'http/1.1'] });
    expect(parseClientHello(hello)).toEqual({ state: 'done', serverName: 'secure.example.com', alpn: ['h2', 'http/1.1'] });
  });

  it('gives no server name when the client sends none', async () => {
    // Node sends no SNI for an IP address
    const hello = await clientHello({ host: '127.0.0.1' });
    expect(parseClientHello(hello)).toMatchObject({ state: 'done', serverName: '' });
  });

  it('asks for more at every cut short of the whole message, and reads it whole once it is', async () => {
    const hello = await clientHello({ servername: 'a.example.com' });
    for (let cut = 0; cut < hello.length; cut++) expect(parseClientHello(hello.subarray(0, cut)).state, `cut at ${cut}`).toBe('more');
    expect(parseClientHello(hello)).toMatchObject({ state: 'done', serverName: 'a.example.com' });
  });

  it('reassembles a ClientHello split over several TLS records', async () => {
    const hello = await clientHello({ servername: 'split.example.com' });
    const split = reframe(hello, 37);
    expect(split.length).toBeGreaterThan(hello.length + 5);
    for (let cut = 0; cut < split.length; cut++) expect(parseClientHello(split.subarray(0, cut)).state, `cut at ${cut}`).toBe('more');
    expect(parseClientHello(split)).toMatchObject({ state: 'done', serverName: 'split.example.com' });
  });

  it('refuses what is not TLS, another record in the middle of the message, and a message over the limit', async () => {
    expect(parseClientHello(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toMatchObject({ state: 'invalid', reason: 'not a TLS handshake' });
    const hello = await clientHello({ servername: 'a.example.com' });
    const split = reframe(hello, 64);
    const broken = Buffer.concat([split.subarray(0, 69), Buffer.from([0x17, 0x03, 0x03, 0x00, 0x01, 0x00])]);
    expect(parseClientHello(broken)).toMatchObject({ state: 'invalid', reason: /interrupted/ });
    expect(parseClientHello(hello, 100)).toMatchObject({ state: 'invalid', reason: /limit is 100/ });
    // bytes that never make a whole message are refused once the limit is reached
    const endless = Buffer.concat([Buffer.from([0x16, 0x03, 0x01, 0x40, 0x00]), Buffer.alloc(100)]);
    expect(parseClientHello(endless, 64)).toMatchObject({ state: 'invalid', reason: /first 64 bytes/ });
  });

  it('refuses a server name that is no host name', async () => {
    const hello = await clientHello({ servername: 'ok.example.com' });
    const bad = Buffer.from(hello);
    const at = bad.indexOf('ok.example.com');
    bad[at + 2] = 0x2f; // "/"
    expect(parseClientHello(bad)).toMatchObject({ state: 'invalid', reason: /server_name/ });
  });
});
