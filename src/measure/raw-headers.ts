/**
 * Picks a few named headers out of undici's raw response headers (`[name, value, ...]` as Buffers)
 * without building the object of all of them: under load each response is scanned once, and only
 * the values asked for are decoded (latin1, as undici decodes them). Names match case-insensitively
 * (RFC 9110 §5.1); a header received more than once is joined with ", " (§5.3).
 */

/** ASCII upper-case letters fold to lower case; every other byte stands for itself. */
function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
}

export class RawHeaderPicker {
  /** The wanted names, lower-cased ASCII, in slot order. */
  readonly #names: readonly Buffer[];

  /** `names[i]` is picked into slot i of `pick`'s result. */
  constructor(names: readonly string[]) {
    this.#names = names.map((name) => Buffer.from(name.toLowerCase(), 'latin1'));
  }

  /** The value of each wanted header, in slot order; null where absent. */
  pick(raw: readonly Buffer[]): (string | null)[] {
    const values: (string | null)[] = new Array<string | null>(this.#names.length).fill(null);
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const slot = this.#slotOf(raw[i]!);
      if (slot < 0) continue;
      const value = raw[i + 1]!.toString('latin1');
      const before = values[slot];
      values[slot] = before === null ? value : `${before}, ${value}`;
    }
    return values;
  }

  #slotOf(name: Buffer): number {
    const names = this.#names;
    next: for (let slot = 0; slot < names.length; slot++) {
      const wanted = names[slot]!;
      if (wanted.length !== name.length) continue;
      for (let j = 0; j < wanted.length; j++) {
        if (lower(name[j]!) !== wanted[j]) continue next;
      }
      return slot;
    }
    return -1;
  }
}
