/**
 * Request boundaries in an HTTP/1.1 client's byte stream, for the flaky proxy (flaky-proxy.ts):
 * the request line and headers, then Content-Length bytes or a chunked body (extensions, trailers).
 * It only looks: the bytes it returns are the ones it was given, sliced where requests begin and end.
 * A head or chunk line over 64 KiB, an Upgrade or CONNECT, or a length it cannot read ends the
 * splitting on that connection (its bytes still come back, with the request under way).
 */

const MAX_HEAD = 64 * 1024;

/**
 * Splits a client's byte stream into requests. `push(chunk)` returns, in stream order, the chunk's
 * slices, each with the request it belongs to (`{buf, request}`; request null before the first), and
 * a marker `{end: request}` right after a request's last byte.
 */
export class RequestSplitter {
  #state = 'idle'; // idle | head | body | chunk-size | chunk-data | chunk-crlf | trailer | opaque
  #current = null;
  #head = [];
  #headLength = 0;
  #remaining = 0;
  #line = '';
  #next;
  #items = [];

  /** `next()` numbers a new request and returns its record ({n, drop, method, path}). */
  constructor({ next }) {
    this.#next = next;
  }

  push(chunk) {
    const slices = [];
    this.#items = slices;
    let i = 0;
    let start = 0;
    const cut = (end) => {
      if (end > start) slices.push({ buf: chunk.subarray(start, end), request: this.#current });
      start = end;
    };
    while (i < chunk.length) {
      switch (this.#state) {
        case 'opaque':
          i = chunk.length;
          break;
        case 'idle': {
          const b = chunk[i];
          if (b === 0x0d || b === 0x0a) {
            i += 1; // stray CRLF between requests: passed on with the previous request's bytes
            break;
          }
          cut(i);
          this.#current = this.#next();
          this.#state = 'head';
          this.#head = [];
          this.#headLength = 0;
          break;
        }
        case 'head': {
          const end = this.#findHeadEnd(chunk, i);
          const stop = end === -1 ? chunk.length : end;
          this.#head.push(chunk.subarray(i, stop));
          this.#headLength += stop - i;
          i = stop;
          if (end === -1) {
            if (this.#headLength > MAX_HEAD) this.#state = 'opaque';
            break;
          }
          this.#startBody(Buffer.concat(this.#head).toString('latin1'));
          if (this.#state === 'idle') {
            cut(i);
            this.#end();
          }
          break;
        }
        case 'body': {
          const take = Math.min(this.#remaining, chunk.length - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) {
            cut(i);
            this.#state = 'idle';
            this.#end();
          }
          break;
        }
        case 'chunk-size':
        case 'trailer': {
          const nl = chunk.indexOf(0x0a, i);
          const stop = nl === -1 ? chunk.length : nl + 1;
          this.#line += chunk.subarray(i, stop).toString('latin1');
          i = stop;
          if (nl === -1) {
            if (this.#line.length > MAX_HEAD) this.#state = 'opaque';
            break;
          }
          const line = this.#line.replace(/\r?\n$/, '');
          this.#line = '';
          if (this.#state === 'trailer') {
            if (line === '') {
              cut(i);
              this.#state = 'idle';
              this.#end();
            }
          } else {
            const size = Number.parseInt(line.split(';')[0].trim(), 16);
            if (!Number.isFinite(size) || size < 0) this.#state = 'opaque';
            else if (size === 0) this.#state = 'trailer';
            else {
              this.#remaining = size;
              this.#state = 'chunk-data';
            }
          }
          break;
        }
        case 'chunk-data': {
          const take = Math.min(this.#remaining, chunk.length - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) {
            this.#remaining = 2;
            this.#state = 'chunk-crlf';
          }
          break;
        }
        case 'chunk-crlf': {
          const take = Math.min(this.#remaining, chunk.length - i);
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#state = 'chunk-size';
          break;
        }
        default:
          throw new Error(`unknown state ${this.#state}`);
      }
    }
    cut(chunk.length);
    return slices;
  }

  /** Index just past "\r\n\r\n" ending the head (which may straddle chunks), or -1. */
  #findHeadEnd(chunk, from) {
    // The last three bytes already in the head, then this chunk: the terminator may straddle them.
    const tail = [];
    for (let k = this.#head.length - 1; k >= 0 && tail.length < 3; k--) {
      const piece = this.#head[k];
      for (let j = piece.length - 1; j >= 0 && tail.length < 3; j--) tail.unshift(piece[j]);
    }
    const window = [...tail];
    for (let j = from; j < chunk.length; j++) {
      window.push(chunk[j]);
      if (window.length > 4) window.shift();
      if (window.length === 4 && window[0] === 0x0d && window[1] === 0x0a && window[2] === 0x0d && window[3] === 0x0a)
        return j + 1;
    }
    return -1;
  }

  #startBody(head) {
    const lines = head.split('\r\n');
    const [method = '', path = ''] = lines[0].split(' ');
    this.#current.method = method;
    this.#current.path = path;
    let length = 0;
    let chunked = false;
    let upgrade = method === 'CONNECT';
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = /(^|,)\s*chunked\s*$/i.test(value);
      else if (name === 'upgrade') upgrade = true;
    }
    if (upgrade) this.#state = 'opaque';
    else if (chunked) this.#state = 'chunk-size';
    else if (Number.isInteger(length) && length > 0) {
      this.#remaining = length;
      this.#state = 'body';
    } else if (Number.isInteger(length)) this.#state = 'idle';
    else this.#state = 'opaque';
  }

  #end() {
    this.#items.push({ end: this.#current });
  }
}
