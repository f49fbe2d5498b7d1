/**
 * Which of a few wanted header names a received header line carries, matched in place in the bytes
 * the socket delivered: under load a response's header names are never turned into strings. Names
 * match case-insensitively (RFC 9110 §5.1).
 */

/** ASCII upper-case letters fold to lower case; every other byte stands for itself. */
function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
}

export class HeaderPicker {
  /** The wanted names, lower-cased ASCII, in slot order. */
  readonly #names: readonly Buffer[];
  /** Slots by name length: a received name is compared only with wanted ones as long. */
  readonly #byLength: readonly (readonly number[])[];

  /** `names[i]` is reported as slot i. */
  constructor(names: readonly string[]) {
    this.#names = names.map((name) => Buffer.from(name.toLowerCase(), 'latin1'));
    const byLength: number[][] = Array.from({ length: Math.max(0, ...this.#names.map((n) => n.length)) + 1 }, () => []);
    this.#names.forEach((name, slot) => byLength[name.length]!.push(slot));
    this.#byLength = byLength;
  }

  get size(): number {
    return this.#names.length;
  }

  /** The slot of the name in `bytes[start, end)`, or -1 when it is none of the wanted ones. */
  slotOf(bytes: Uint8Array, start: number, end: number): number {
    const slots = this.#byLength[end - start];
    if (slots === undefined) return -1;
    next: for (const slot of slots) {
      const wanted = this.#names[slot]!;
      for (let j = 0; j < wanted.length; j++) {
        if (lower(bytes[start + j]!) !== wanted[j]) continue next;
      }
      return slot;
    }
    return -1;
  }
}
