/**
 * The load driver's HTTP/1.1 response parser, on bytes as a socket may cut them: every response is
 * also fed in two reads split at each offset, and must parse the same.
 */
import { describe, expect, it } from 'vitest';
import { HeaderPicker } from '../../src/measure/header-picker.ts';
import { Http1ResponseParser, ResponseParseError } from '../../src/measure/http1-response.ts';

const picker = new HeaderPicker(['x-ratelimit-remaining', 'retry-after', 'date']);

interface Parsed {
  status: number | null;
  values: (string | null)[] | null;
  body: string;
  ended: boolean;
  reusable: boolean | null;
}

function parse(
  reads: readonly Buffer[],
  options: { head?: boolean; close?: boolean } = {},
): Parsed & { keepAliveMs: number | null } {
  const parser = new Http1ResponseParser(picker);
  const out: Parsed = { status: null, values: null, body: '', ended: false, reusable: null };
  parser.expect(options.head ?? false, {
    onHead: (status, values) => Object.assign(out, { status, values }),
    onBody: (chunk) => (out.body += chunk.toString('latin1')),
    onEnd: (reusable) => Object.assign(out, { ended: true, reusable }),
  });
  for (const read of reads) parser.execute(read);
  if (options.close) parser.closed();
  return { ...out, keepAliveMs: parser.keepAliveMs };
}

/** The response parsed whole, and split in two at every offset: each must give the same. */
function parseEverySplit(text: string, options: { head?: boolean; close?: boolean } = {}) {
  const bytes = Buffer.from(text, 'latin1');
  const whole = parse([bytes], options);
  for (let at = 1; at < bytes.length; at++)
    expect(parse([bytes.subarray(0, at), bytes.subarray(at)], options), `split at ${at}`).toEqual(whole);
  return whole;
}

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ResponseParseError) return error.code;
    throw error;
  }
  return null;
};

describe('Http1ResponseParser', () => {
  it('reads a Content-Length response: status, the wanted headers by name in any case, the body', () => {
    const r = parseEverySplit(
      'HTTP/1.1 429 Too Many Requests\r\nX-RateLimit-Remaining:  0 \r\nretry-after: 12\r\nRetry-After: 13\r\nContent-Length: 5\r\nKeep-Alive: timeout=5\r\n\r\nhello',
    );
    expect(r).toEqual({
      status: 429,
      values: ['0', '12, 13', null],
      body: 'hello',
      ended: true,
      reusable: true,
      keepAliveMs: 5000,
    });
  });

  it("reads Keep-Alive's timeout in any case and place, and none where it has none", () => {
    expect(
      parseEverySplit('HTTP/1.1 200 OK\r\nKeep-Alive: max=100, Timeout=7\r\nContent-Length: 0\r\n\r\n').keepAliveMs,
    ).toBe(7000);
    expect(
      parseEverySplit('HTTP/1.1 200 OK\r\nKeep-Alive: max=100\r\nContent-Length: 0\r\n\r\n').keepAliveMs,
    ).toBeNull();
  });

  it('reads a chunked body with extensions and trailers', () => {
    const r = parseEverySplit(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n5;ext=1\r\nhello\r\n1 \r\n!\r\n0\r\nX-Trailer: t\r\n\r\n',
    );
    expect(r).toMatchObject({ status: 200, body: 'hello!', ended: true, reusable: true });
  });

  it('skips interim 1xx responses', () => {
    expect(
      parseEverySplit('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok'),
    ).toMatchObject({ status: 201, body: 'ok', reusable: true });
  });

  it('knows the responses without a body: to HEAD, 204, 304', () => {
    expect(parseEverySplit('HTTP/1.1 200 OK\r\nContent-Length: 1649\r\n\r\n', { head: true })).toMatchObject({
      status: 200,
      body: '',
      ended: true,
      reusable: true,
    });
    expect(parseEverySplit('HTTP/1.1 204 No Content\r\n\r\n')).toMatchObject({
      status: 204,
      ended: true,
      reusable: true,
    });
    expect(parseEverySplit('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n')).toMatchObject({
      status: 304,
      ended: true,
      reusable: true,
    });
  });

  it('reads a body without length until the server closes, and does not reuse that connection', () => {
    const open = parse([Buffer.from('HTTP/1.1 200 OK\r\n\r\npart')]);
    expect(open).toMatchObject({ body: 'part', ended: false });
    expect(parseEverySplit('HTTP/1.1 200 OK\r\n\r\nall of it', { close: true })).toMatchObject({
      body: 'all of it',
      ended: true,
      reusable: false,
    });
  });

  it('keeps a connection only when the server does', () => {
    expect(parseEverySplit('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')).toMatchObject({
      ended: true,
      reusable: false,
    });
    expect(parseEverySplit('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n')).toMatchObject({
      ended: true,
      reusable: false,
    });
    expect(parseEverySplit('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n')).toMatchObject({
      ended: true,
      reusable: true,
    });
    // More bytes than the response: the server answered something not asked.
    expect(parse([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1')])).toMatchObject({
      body: 'x',
      ended: true,
      reusable: false,
    });
  });

  it('refuses what is no HTTP/1.1 response, with a stable code', () => {
    const bytes = (text: string) => () => parse([Buffer.from(text, 'latin1')]);
    expect(code(bytes('HTTP/2 200 OK\r\n\r\n'))).toBe('HEADERS_INVALID');
    expect(code(bytes('HTTP/1.1 20 OK\r\n\r\n'))).toBe('HEADERS_INVALID');
    expect(code(bytes('HTTP/1.1 200 OK\nContent-Length: 0\n\n'))).toBe('HEADERS_INVALID');
    expect(code(bytes('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'))).toBe('HEADERS_INVALID');
    expect(code(bytes('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'))).toBe('HEADERS_INVALID');
    expect(code(bytes('HTTP/1.1 200 OK\r\nno colon\r\n\r\n'))).toBe('HEADERS_INVALID');
    expect(code(bytes('HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n'))).toBe('HEADERS_INVALID');
    expect(code(bytes(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(17 * 1024)}`))).toBe('HEADERS_OVERFLOW');
    expect(code(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'))).toBe('BODY_INVALID');
    expect(code(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n'))).toBe('BODY_INVALID');
    const idle = new Http1ResponseParser(picker);
    expect(code(() => idle.execute(Buffer.from('HTTP/1.1 200 OK\r\n\r\n')))).toBe('HEADERS_INVALID');
  });
});
