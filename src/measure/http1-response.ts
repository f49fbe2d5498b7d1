/**
 * The HTTP/1.1 responses on one of the load driver's connections (RFC 9112), parsed as the socket
 * delivers them: the status line, the values of a few wanted headers (a HeaderPicker: no other
 * header becomes a string), and the body's framing (§6.3: none after HEAD, 1xx, 204 and 304;
 * chunked; Content-Length; else until the server closes). Interim 1xx responses are skipped. No body
 * byte is copied: each passes to the sink as a view valid for that call.
 */
import { HeaderPicker } from './header-picker.ts';
import { isDigitCode } from './observation.ts';

export interface ResponseSink {
  /** The final response's status and the picked header values, in the picker's slot order. */
  onHead(status: number, values: (string | null)[]): void;
  onBody(chunk: Buffer): void;
  /** The response is complete; `reusable`: the connection may carry the next request. */
  onEnd(reusable: boolean): void;
}

type ResponseParseErrorCode = 'HEADERS_INVALID' | 'HEADERS_OVERFLOW' | 'BODY_INVALID';

/** Bytes that are no HTTP/1.1 response; the connection cannot be used after them. */
export class ResponseParseError extends Error {
  constructor(
    readonly code: ResponseParseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ResponseParseError';
  }
}

/** undici's default limit on a response head, kept. */
const MAX_HEAD_BYTES = 16 * 1024;
const MAX_LINE_BYTES = 4 * 1024;
const CR = 0x0d;
const LF = 0x0a;
const COLON = 0x3a;
const SP = 0x20;
const HTAB = 0x09;
const STATUS_LINE = Buffer.from('HTTP/1.', 'latin1');

const FRAMING = new HeaderPicker(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);
const CONTENT_LENGTH = 0;
const TRANSFER_ENCODING = 1;
const CONNECTION = 2;
const KEEP_ALIVE = 3;
const CONNECTION_TOKENS = new HeaderPicker(['keep-alive']);
const KEEP_ALIVE_TOKEN = 0;

type State = 'idle' | 'head' | 'length' | 'until-close' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers';

/** What a complete head says, before the sink hears of it. */
interface Head {
  readonly end: number;
  readonly status: number;
  readonly values: (string | null)[];
  readonly keepAlive: boolean;
  readonly keepAliveMs: number | null;
  /** Body framing: a length, 'chunked', or 'until-close'. */
  readonly framing: number | 'chunked' | 'until-close';
}

const invalid = (message: string) => new ResponseParseError('HEADERS_INVALID', message);

/** Index of the CR of the next CRLF at or after `from`, -1 when the bytes end first. */
function lineEnd(bytes: Buffer, from: number): number {
  const lf = bytes.indexOf(LF, from);
  if (lf < 0) return -1;
  if (lf === from || bytes[lf - 1] !== CR) throw invalid('a line that does not end in CRLF');
  return lf - 1;
}

function startsWith(bytes: Buffer, at: number, prefix: Buffer): boolean {
  for (let k = 0; k < prefix.length; k++) if (bytes[at + k] !== prefix[k]) return false;
  return true;
}

const TIMEOUT_PARAM = Buffer.from('timeout=');

/** The seconds of a Keep-Alive value's `timeout=` parameter (any case), -1 without one. */
function keepAliveTimeoutS(bytes: Buffer, start: number, end: number): number {
  for (let at = start; at + TIMEOUT_PARAM.length <= end; at++) {
    let k = 0;
    // Lower-cases letters; '=' has that bit set already.
    while (k < TIMEOUT_PARAM.length && (bytes[at + k]! | 0x20) === TIMEOUT_PARAM[k]) k++;
    if (k < TIMEOUT_PARAM.length) continue;
    const digits = at + k;
    let last = digits;
    while (last < end && isDigitCode(bytes[last]!)) last++;
    return last > digits ? decimal(bytes, digits, last) : -1;
  }
  return -1;
}

/** `bytes[start, end)` as a non-negative decimal integer (at most 15 digits), else -1. */
function decimal(bytes: Buffer, start: number, end: number): number {
  if (end <= start || end - start > 15) return -1;
  let n = 0;
  for (let k = start; k < end; k++) {
    const byte = bytes[k]!;
    if (!isDigitCode(byte)) return -1;
    n = n * 10 + (byte - 0x30);
  }
  return n;
}

/** The status code of the status line `bytes[start, statusEnd)`; throws when it is no HTTP/1.x status line. */
function statusCode(bytes: Buffer, start: number, statusEnd: number): number {
  // HTTP/1.x SP 3DIGIT [SP reason]
  if (statusEnd - start < 12 || !startsWith(bytes, start, STATUS_LINE)) throw invalid('not an HTTP/1.x status line');
  const minor = bytes[start + 7]!;
  const d = start + 9;
  if (
    (minor !== 0x30 && minor !== 0x31) ||
    bytes[start + 8] !== SP ||
    !isDigitCode(bytes[d]!) ||
    !isDigitCode(bytes[d + 1]!) ||
    !isDigitCode(bytes[d + 2]!) ||
    (statusEnd > d + 3 && bytes[d + 3] !== SP)
  ) {
    throw invalid('not an HTTP/1.x status line');
  }
  return (bytes[d]! - 0x30) * 100 + (bytes[d + 1]! - 0x30) * 10 + (bytes[d + 2]! - 0x30);
}

const CLOSE_BIT = 1;
const KEEP_ALIVE_BIT = 2;

/** The `close` (CLOSE_BIT) and `keep-alive` (KEEP_ALIVE_BIT) tokens of a Connection value `bytes[start, end)`. */
function connectionTokens(bytes: Buffer, start: number, end: number): number {
  let tokens = 0;
  for (const token of bytes.toString('latin1', start, end).toLowerCase().split(',')) {
    if (token.trim() === 'close') tokens |= CLOSE_BIT;
    else if (token.trim() === 'keep-alive') tokens |= KEEP_ALIVE_BIT;
  }
  return tokens;
}

/** A body's framing (§6.3) from the head's Transfer-Encoding and Content-Length. */
function bodyFraming(chunked: boolean, transferEncoding: boolean, contentLength: number): Head['framing'] {
  // §6.3: Transfer-Encoding overrides Content-Length; a response without either runs until close.
  return chunked ? 'chunked' : transferEncoding || contentLength < 0 ? 'until-close' : contentLength;
}

export class Http1ResponseParser {
  readonly #picker: HeaderPicker;
  #sink: ResponseSink | null = null;
  #state: State = 'idle';
  #headRequest = false;
  #keepAlive = false;
  /** Bytes of a head or a chunk line that a read cut in two. */
  #pending: Buffer | null = null;
  /** Bytes left of a Content-Length body, a chunk, or a chunk's CRLF. */
  #remaining = 0;
  /** The server's Keep-Alive timeout from its last response, ms; null when it gave none. */
  keepAliveMs: number | null = null;

  constructor(picker: HeaderPicker) {
    this.#picker = picker;
  }

  /** A request went out (HEAD: its response has no body); its response comes next. */
  expect(headRequest: boolean, sink: ResponseSink): void {
    this.#sink = sink;
    this.#headRequest = headRequest;
    this.#state = 'head';
    this.#pending = null;
  }

  /** Bytes from the socket. Throws ResponseParseError. */
  execute(data: Buffer): void {
    let i = 0;
    while (i < data.length) {
      switch (this.#state) {
        case 'idle':
          throw invalid('bytes from the server while no request is outstanding');
        case 'head': {
          const head = this.#head(data, i);
          if (head === null) return;
          i = head.end;
          this.#keepAlive = head.keepAlive;
          this.keepAliveMs = head.keepAliveMs;
          this.#sink!.onHead(head.status, head.values);
          if (head.framing === 0) return this.#complete(i === data.length);
          if (head.framing === 'chunked') this.#state = 'chunk-size';
          else if (head.framing === 'until-close') this.#state = 'until-close';
          else {
            this.#state = 'length';
            this.#remaining = head.framing;
          }
          break;
        }
        case 'length':
        case 'chunk-data': {
          const n = Math.min(this.#remaining, data.length - i);
          this.#sink!.onBody(data.subarray(i, i + n));
          this.#remaining -= n;
          i += n;
          if (this.#remaining > 0) break;
          if (this.#state === 'length') return this.#complete(i === data.length);
          this.#state = 'chunk-end';
          this.#remaining = 2;
          break;
        }
        case 'until-close':
          this.#sink!.onBody(data.subarray(i));
          i = data.length;
          break;
        case 'chunk-end':
          if (data[i] !== (this.#remaining === 2 ? CR : LF))
            throw new ResponseParseError('BODY_INVALID', 'a chunk not followed by CRLF');
          i += 1;
          this.#remaining -= 1;
          if (this.#remaining === 0) this.#state = 'chunk-size';
          break;
        case 'chunk-size': {
          const line = this.#line(data, i);
          if (line === null) return;
          i = line.next;
          const size = chunkSize(line.text);
          if (size === 0) this.#state = 'trailers';
          else {
            this.#state = 'chunk-data';
            this.#remaining = size;
          }
          break;
        }
        case 'trailers': {
          const line = this.#line(data, i);
          if (line === null) return;
          i = line.next;
          if (line.text.length === 0) return this.#complete(i === data.length);
          break;
        }
      }
    }
  }

  /** The server closed the connection: true if that ended the response (a body until close). */
  closed(): boolean {
    if (this.#state !== 'until-close') return false;
    this.#complete(true);
    return true;
  }

  /** Bytes left after a response mean the server sent more than was asked: the connection is done. */
  #complete(nothingLeft: boolean): void {
    const sink = this.#sink!;
    this.#state = 'idle';
    this.#sink = null;
    sink.onEnd(this.#keepAlive && nothingLeft);
  }

  /** The final response's head, skipping interim ones; null (bytes kept) while it is incomplete. */
  #head(data: Buffer, from: number): Head | null {
    const pending = this.#pending;
    const bytes = pending === null ? data : Buffer.concat([pending, data.subarray(from)]);
    let start = pending === null ? from : 0;
    for (;;) {
      const head = this.#parseHead(bytes, start);
      if (head === null) {
        if (bytes.length - start > MAX_HEAD_BYTES)
          throw new ResponseParseError('HEADERS_OVERFLOW', `a response head over ${MAX_HEAD_BYTES} bytes`);
        this.#pending = Buffer.from(bytes.subarray(start));
        return null;
      }
      if (head.status >= 200) {
        this.#pending = null;
        // Offsets past the kept bytes are offsets into this read.
        return pending === null ? head : { ...head, end: from + head.end - pending.length };
      }
      if (head.status === 101) throw invalid('101 Switching Protocols: the load driver does not upgrade');
      start = head.end;
    }
  }

  #parseHead(bytes: Buffer, start: number): Head | null {
    const statusEnd = lineEnd(bytes, start);
    if (statusEnd < 0) return null;
    const status = statusCode(bytes, start, statusEnd);
    const minor = bytes[start + 7]!;
    const values = new Array<string | null>(this.#picker.size).fill(null);
    let contentLength = -1;
    let chunked = false;
    let transferEncoding = false;
    let close = false;
    let keepAliveToken = false;
    let keepAliveMs: number | null = null;
    let p = statusEnd + 2;
    for (;;) {
      const end = lineEnd(bytes, p);
      if (end < 0) return null;
      if (end === p) {
        p += 2;
        break;
      }
      if (bytes[p] === SP || bytes[p] === HTAB) throw invalid('obsolete header line folding');
      let colon = p;
      while (colon < end && bytes[colon] !== COLON) colon++;
      if (colon === p || colon === end) throw invalid('a header line without a name');
      let vs = colon + 1;
      let ve = end;
      while (vs < ve && (bytes[vs] === SP || bytes[vs] === HTAB)) vs++;
      while (ve > vs && (bytes[ve - 1] === SP || bytes[ve - 1] === HTAB)) ve--;
      const slot = this.#picker.slotOf(bytes, p, colon);
      if (slot >= 0) {
        const value = bytes.toString('latin1', vs, ve);
        const before = values[slot];
        values[slot] = before === null || before === undefined ? value : `${before}, ${value}`;
      }
      switch (FRAMING.slotOf(bytes, p, colon)) {
        case CONTENT_LENGTH: {
          const length = decimal(bytes, vs, ve);
          if (length < 0 || (contentLength >= 0 && length !== contentLength))
            throw invalid(`Content-Length ${JSON.stringify(bytes.toString('latin1', vs, ve))}`);
          contentLength = length;
          break;
        }
        case TRANSFER_ENCODING:
          transferEncoding = true;
          chunked = bytes.toString('latin1', vs, ve).split(',').at(-1)!.trim().toLowerCase() === 'chunked';
          break;
        case CONNECTION:
          // Usually the one token: matched in place, without a string.
          if (CONNECTION_TOKENS.slotOf(bytes, vs, ve) === KEEP_ALIVE_TOKEN) keepAliveToken = true;
          else {
            const tokens = connectionTokens(bytes, vs, ve);
            if (tokens & CLOSE_BIT) close = true;
            if (tokens & KEEP_ALIVE_BIT) keepAliveToken = true;
          }
          break;
        case KEEP_ALIVE: {
          // Node's servers send it on every answer: read in place, without a string.
          const timeoutS = keepAliveTimeoutS(bytes, vs, ve);
          if (timeoutS >= 0) keepAliveMs = timeoutS * 1000;
          break;
        }
      }
      p = end + 2;
    }
    const keepAlive = !close && (minor === 0x31 || keepAliveToken);
    const noBody = this.#headRequest || status < 200 || status === 204 || status === 304;
    const framing = noBody ? 0 : bodyFraming(chunked, transferEncoding, contentLength);
    return { end: p, status, values, keepAlive: keepAlive && framing !== 'until-close', keepAliveMs, framing };
  }

  /** The next line (without its CRLF) and the offset after it; null (bytes kept) when a read cut it. */
  #line(data: Buffer, from: number): { text: string; next: number } | null {
    const lf = data.indexOf(LF, from);
    if (lf < 0) {
      const kept =
        this.#pending === null ? Buffer.from(data.subarray(from)) : Buffer.concat([this.#pending, data.subarray(from)]);
      if (kept.length > MAX_LINE_BYTES)
        throw new ResponseParseError('BODY_INVALID', `a chunk line over ${MAX_LINE_BYTES} bytes`);
      this.#pending = kept;
      return null;
    }
    const line =
      this.#pending === null ? data.subarray(from, lf) : Buffer.concat([this.#pending, data.subarray(from, lf)]);
    this.#pending = null;
    if (line.length === 0 || line[line.length - 1] !== CR)
      throw new ResponseParseError('BODY_INVALID', 'a chunk line that does not end in CRLF');
    return { text: line.toString('latin1', 0, line.length - 1), next: lf + 1 };
  }
}

/** A chunk's size line: hex digits, then optional whitespace and extensions (§7.1.1). */
function chunkSize(line: string): number {
  const digits = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/.exec(line);
  if (!digits) throw new ResponseParseError('BODY_INVALID', `chunk size ${JSON.stringify(line.slice(0, 40))}`);
  return Number.parseInt(digits[1]!, 16);
}
